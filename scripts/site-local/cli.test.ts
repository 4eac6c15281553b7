/**
 * `npm run site:local`: --help prints the usage and starts nothing; wrong options are refused with the reason; and
 * the real command starts WordPress 7.1 on the port asked for, with the SEO stand-in, and stops on SIGTERM.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { parseSiteLocalArgs } from "./args";

const execFileAsync = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");
const CLI = ["--import", "tsx", path.join(ROOT, "scripts/site-local/cli.ts")];

describe("the site:local command line", () => {
  it("maps each option to the harness's", () => {
    expect(parseSiteLocalArgs([])).toEqual({ help: false, options: {} });
    expect(
      parseSiteLocalArgs(["--wordpress", "7.1", "--builder=elementor", "--port", "8443", "--seo-stand-in"]),
    ).toEqual({
      help: false,
      options: { wordpress: "7.1", plugins: ["elementor"], port: 8443, seoStandIn: true },
    });
    expect(parseSiteLocalArgs(["--plain-permalinks", "--allow-http-service", "--sandbox"])).toEqual({
      help: false,
      options: { permalinks: false, allowHttpService: true, sandbox: true },
    });
    expect(parseSiteLocalArgs(["--port", "1", "--help"])).toEqual({ help: true });
  });

  it.each([
    [["--wordpress", "5.9"], "--wordpress: 5.9 is not one of 6.1, 7.1"],
    [["--builder", "divi"], "--builder: divi is not one of elementor"],
    [["--port", "99999"], "--port: 99999 is not a port"],
    [["--port", "80a"], "--port: 80a is not a port"],
    [["--port"], "--port needs a value"],
    [["--port", "--sandbox"], "--port needs a value"],
    [["--sandbox=yes"], "Unknown option --sandbox=yes"],
    [["--verbose"], "Unknown option --verbose"],
  ])("refuses %j: %s", (argv, message) => {
    expect(() => parseSiteLocalArgs(argv)).toThrow(message);
  });

  it("--help prints the usage, exits 0 and starts no WordPress", async () => {
    const started = Date.now();
    const { stdout } = await execFileAsync(process.execPath, [...CLI, "--help"], { cwd: ROOT });
    expect(stdout).toMatch(/^Usage: npm run site:local -- \[options\]/);
    for (const flag of ["--wordpress 6.1|7.1", "--builder elementor", "--seo-stand-in", "--port N", "--help"]) {
      expect(stdout).toContain(flag);
    }
    // Starting a site takes seconds and prints its address; the usage does neither.
    expect(stdout).not.toContain("is running at");
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it("refuses a wrong option with exit code 2 and the usage, and Elementor on 6.1 with the reason", async () => {
    const wrong = await execFileAsync(process.execPath, [...CLI, "--wordpress", "6.0"], { cwd: ROOT }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(wrong).toMatchObject({ code: 2, stderr: expect.stringContaining("--wordpress: 6.0 is not one of") });
    expect((wrong as { stderr: string }).stderr).toContain("Usage:");
    const builder = await execFileAsync(process.execPath, [...CLI, "--wordpress", "6.1", "--builder", "elementor"], {
      cwd: ROOT,
    }).catch((error: { code: number; stderr: string }) => error);
    expect(builder).toMatchObject({ code: 1, stderr: expect.stringContaining("elementor needs WordPress 6.8+") });
  });

  it("starts WordPress 7.1 on the port asked for, with the SEO stand-in, and stops on SIGTERM", async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [...CLI, "--wordpress", "7.1", "--port", String(port), "--seo-stand-in"], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const banner = await readUntil(child, /Press Ctrl-C to stop\./, 120_000);
      expect(banner).toContain(`WordPress 7.1 is running at https://localhost:${port}`);
      expect(banner).toContain("the Yoast SEO stand-in (meta keys only) is active");
      const files = /Files: +(\S+)/.exec(banner)?.[1] as string;
      expect(existsSync(path.join(files, "wp-content/mu-plugins/sitewright-seo-stand-in.php"))).toBe(true);
      const index = await fetch(`https://localhost:${port}/wp-json/`);
      expect(index.status).toBe(200);
      // The plugin sees "Yoast SEO" through the stand-in's version constant.
      const { stdout } = await execFileAsync("php", [
        "-r",
        "require $argv[1] . '/wp-load.php'; echo wp_json_encode( Sitewright_Site_Info::collect()['seo'] );",
        files,
      ]);
      expect(JSON.parse(stdout)).toMatchObject({ plugin: "yoast", name: "Yoast SEO" });

      child.kill("SIGTERM");
      const [code] = (await once(child, "exit")) as [number];
      expect(code).toBe(0);
      expect(existsSync(files)).toBe(false);
      await expect(fetch(`https://localhost:${port}/wp-json/`)).rejects.toThrow();
    } finally {
      // SIGTERM lets the command stop its WordPress (SIGKILL would leave PHP and Caddy running).
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await Promise.race([once(child, "exit"), new Promise((r) => setTimeout(r, 20_000))]);
      }
    }
  }, 180_000);
});

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = net.createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => done(port));
    });
  });
}

function readUntil(child: ChildProcess, pattern: RegExp, ms: number): Promise<string> {
  return new Promise((done, fail) => {
    let out = "";
    const timer = setTimeout(() => fail(new Error(`No ${pattern} within ${ms} ms:\n${out}`)), ms);
    const onData = (chunk: Buffer) => {
      out += chunk.toString("utf8");
      if (pattern.test(out)) {
        clearTimeout(timer);
        done(out);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      fail(new Error(`site:local exited with ${code}:\n${out}`));
    });
  });
}
