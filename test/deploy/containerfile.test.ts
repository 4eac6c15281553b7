/**
 * The Containerfile, built here with Podman as an operator with no registry builds it (docs/deployment.md, "The
 * image"): its base is a local one made from the Debian root filesystem the sandbox image already uses
 * (`npm run deploy:base`). The image runs as a non-root user and answers /health, read-only and without
 * capabilities as the unit runs it; the engine proxy starts from the same image; and the build context holds no
 * .env, .dev-secrets.json or .git. The build is cached by its inputs (the base's tag, the Containerfile and every file
 * of the context, which leaves out tests and docs), as the sandbox image is: an unchanged app reuses the image.
 */
import { execFile, execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminUrl } from "@/lib/db/testing";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
const REPOSITORY = "localhost/sitewright-app-containerfile";
const work = mkdtempSync(path.join(tmpdir(), "sitewright-containerfile-"));
const name = `sitewright-cf-${randomBytes(4).toString("hex")}`;
const database = `sw_cf_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`;
let base = "";
let image = "";
let url = "";

/** A .containerignore pattern as a regular expression: `**` spans folders, `*` and `?` do not; a folder takes its files. */
function ignorePattern(pattern: string): RegExp {
  const body = pattern
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*\*\//g, "\u0000")
    .replace(/\*/g, "[^/]*")
    .replace(/\?/g, "[^/]")
    .replaceAll("\u0000", "(?:.*/)?");
  return new RegExp(`^${body}(?:/.*)?$`);
}

/** The context's files as .containerignore leaves them (later lines win; `!` lines take a file back). */
function contextFiles(): string[] {
  const rules = readFileSync(path.join(root, ".containerignore"), "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => ({ keep: line.startsWith("!"), glob: ignorePattern(line.replace(/^!/, "")) }));
  const listed = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
  });
  return listed
    .split("\n")
    .filter((file) => file && existsSync(path.join(root, file)))
    .filter((file) => rules.reduce((ignored, rule) => (rule.glob.test(file) ? !rule.keep : ignored), false) === false)
    .sort();
}

/** What the image is made of: the base, the Containerfile, and every file of the context. */
function inputsHash(baseTag: string): string {
  const hash = createHash("sha256")
    .update(baseTag)
    .update("\0")
    .update(readFileSync(path.join(root, "Containerfile")));
  for (const file of contextFiles())
    hash
      .update(file)
      .update("\0")
      .update(readFileSync(path.join(root, file)));
  return hash.digest("hex").slice(0, 16);
}

async function lastLine(command: string, args: string[]) {
  const { stdout } = await run(command, args, { cwd: root, maxBuffer: 16 * 1024 * 1024, timeout: 900_000 });
  return stdout.trim().split("\n").at(-1)!;
}

async function adminSql(statement: string) {
  const { default: postgres } = await import("postgres");
  const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(statement);
  } finally {
    await admin.end();
  }
}

async function waitFor(what: string, probe: () => Promise<boolean>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe().catch(() => false))) {
    if (Date.now() > deadline) {
      const logs = await run("podman", ["logs", name]).catch(() => ({ stdout: "", stderr: "" }));
      throw new Error(`timed out waiting for ${what}:\n${logs.stdout}${logs.stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

beforeAll(async () => {
  base = await lastLine("npm", ["run", "--silent", "deploy:base"]);
  image = `${REPOSITORY}:${inputsHash(base)}`;
  const built = await run("podman", ["image", "exists", image]).then(
    () => true,
    () => false,
  );
  if (!built) {
    await run(
      "podman",
      ["build", "--quiet", "-f", "Containerfile", "--build-arg", `BASE_IMAGE=${base}`, "-t", image, "."],
      { cwd: root, maxBuffer: 64 * 1024 * 1024, timeout: 3_600_000 },
    );
    // Earlier builds of this test (its own repository, about a gigabyte each) make way for the new one.
    const listed = (await run("podman", ["images", "--format", "{{.Repository}}:{{.Tag}}", REPOSITORY])).stdout;
    for (const older of listed.split("\n").filter((tag) => tag.startsWith(`${REPOSITORY}:`) && tag !== image)) {
      await run("podman", ["rmi", older]).catch(() => {}); // in use: kept
    }
  }
  await adminSql(`create database "${database}"`);
  const databaseUrl = new URL(adminUrl());
  databaseUrl.pathname = `/${database}`;
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  url = `http://127.0.0.1:${port}`;
  const envFile = path.join(work, "app.env");
  writeFileSync(
    envFile,
    [
      `PORT=${port}`,
      `APP_URL=${url}`,
      `DATABASE_URL=${databaseUrl}`,
      `SESSION_SECRET=${randomBytes(48).toString("base64url")}`,
      `ENCRYPTION_KEY=${randomBytes(32).toString("hex")}`,
      "SANDBOX_DRIVER=",
      "",
    ].join("\n"),
    { mode: 0o600 },
  );
  // As deploy/systemd/sitewright.service runs the app, but for --user: the image's own user is what is checked.
  await run("podman", [
    "run",
    "-d",
    "--rm",
    "--name",
    name,
    "--network",
    "host",
    "--read-only",
    "--tmpfs",
    "/var/cache/sitewright:rw,nosuid,nodev,noexec,size=320m,mode=1777",
    "--tmpfs",
    "/app/.next/cache:rw,nosuid,nodev,noexec,size=256m,mode=1777",
    "--cap-drop",
    "all",
    "--security-opt",
    "no-new-privileges",
    "--env-file",
    envFile,
    image,
    "--hostname",
    "127.0.0.1",
  ]);
  await waitFor("/health", async () => (await fetch(`${url}/health`)).ok, 120_000);
}, 3_700_000);

afterAll(async () => {
  await run("podman", ["rm", "--force", "--ignore", name, `${name}-proxy`]).catch(() => {});
  await adminSql(`drop database if exists "${database}" with (force)`).catch(() => {});
  rmSync(work, { recursive: true, force: true });
}, 120_000);

describe("the Containerfile, built here from a local Debian base", () => {
  it("makes an image whose default user is not root, and that answers /health", async () => {
    const inspected = JSON.parse((await run("podman", ["image", "inspect", image])).stdout)[0];
    expect(inspected.Config.User).toBe("10002:10002");
    const health = (await (await fetch(`${url}/health`)).json()) as { status: string; checks: { store: string } };
    expect(health).toMatchObject({ status: "ok", checks: { store: "ok" } });
    const status = (
      await run("podman", [
        "exec",
        name,
        "node",
        "-e",
        "process.stdout.write(require('fs').readFileSync('/proc/1/status','utf8'))",
      ])
    ).stdout;
    expect(status).toMatch(/^Uid:\s+10002\s/m);
    expect(status).toMatch(/^CapEff:\s+0000000000000000$/m);
    expect(status).toMatch(/^NoNewPrivs:\s+1$/m);
  });

  it("starts the engine proxy from the same image, as its unit does", async () => {
    const dir = path.join(work, "engine");
    mkdirSync(dir);
    execFileSync("chown", ["10003:10002", dir]);
    await run("podman", [
      "run",
      "-d",
      "--rm",
      "--name",
      `${name}-proxy`,
      "--network",
      "none",
      "--read-only",
      "--cap-drop",
      "all",
      "--security-opt",
      "no-new-privileges",
      "--user",
      "10003:10002",
      "--volume",
      `${dir}:/run/sitewright/engine`,
      "--entrypoint",
      "node",
      image,
      "scripts/engine-proxy.mjs",
    ]);
    const socket = path.join(dir, "engine.sock");
    await waitFor("the proxy's socket", async () => existsSync(socket), 60_000);
    const answer = await new Promise<number>((resolve, reject) => {
      import("node:http").then(({ get }) =>
        get({ socketPath: socket, path: "/info" }, (response) => resolve(response.statusCode ?? 0)).on("error", reject),
      );
    });
    expect(answer).toBe(403);
  });

  it("keeps .env, .dev-secrets.json and .git out of the build context, and no secret in any layer's history", async () => {
    // A canary for each secret file (left alone when the checkout has its own), then a build that copies the whole
    // context and fails if any of them arrived.
    const planted = [".env", ".dev-secrets.json"].filter((file) => !existsSync(path.join(root, file)));
    for (const file of planted) writeFileSync(path.join(root, file), "SITEWRIGHT_CANARY=1\n", { mode: 0o600 });
    const probe = path.join(work, "Probe.Containerfile");
    writeFileSync(
      probe,
      `FROM ${base}\nCOPY . /context\nRUN test ! -e /context/.env && test ! -e /context/.dev-secrets.json && test ! -e /context/.git && test -e /context/package.json\n`,
    );
    const probeTag = `localhost/sitewright-context-probe:${randomBytes(4).toString("hex")}`;
    try {
      await run("podman", ["build", "--quiet", "--no-cache", "-t", probeTag, "-f", probe, "."], {
        cwd: root,
        maxBuffer: 16 * 1024 * 1024,
        timeout: 600_000,
      });
    } finally {
      for (const file of planted) rmSync(path.join(root, file), { force: true });
      await run("podman", ["rmi", "--force", probeTag]).catch(() => {});
    }
    const history = (await run("podman", ["history", "--no-trunc", "--format", "{{.CreatedBy}}", image])).stdout;
    expect(history).not.toMatch(/SESSION_SECRET|ENCRYPTION_KEY|OPENAI_API_KEY|\.dev-secrets|\.env\b/);
  }, 660_000);
});
