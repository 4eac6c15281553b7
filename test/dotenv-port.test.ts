/**
 * PORT written only in `.env` is the port `npm start` and `npm run dev` listen on (scripts/lib/listen-port.mjs), as
 * the README says. Each runs in a temporary copy of the project (node_modules and the production build hard-linked),
 * so a developer's own `.env` is never touched. Needs `npm run build` first for `npm start` (npm test builds).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INSTANCE_SECRETS } from "@/test/reliability/support/instances";
import { freePort } from "@/test/reliability/support/private-postgres";

const ROOT = path.resolve(import.meta.dirname, "..");
const LEFT_OUT = new Set(["node_modules", ".next", ".git", ".cache", ".env", ".dev-secrets.json"]);
let copy: string;

beforeAll(() => {
  if (!existsSync(path.join(ROOT, ".next", "BUILD_ID"))) {
    throw new Error("No production build: run `npm run build` first (npm test does).");
  }
  copy = mkdtempSync(path.join(tmpdir(), "sitewright-dotenv-"));
  cpSync(ROOT, copy, {
    recursive: true,
    filter: (from) => !LEFT_OUT.has(path.relative(ROOT, from).split(path.sep)[0] ?? ""),
  });
  for (const linked of ["node_modules", ".next"]) {
    const done = spawnSync("cp", ["-al", path.join(ROOT, linked), path.join(copy, linked)]);
    if (done.status !== 0) throw new Error(`cp -al ${linked}: ${done.stderr}`);
  }
});
afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true, maxRetries: 5, retryDelay: 500 });
});

/** `npm run <script>` in the copy, with no PORT in its environment; resolves when /health answers on `port`. */
async function run(script: string, port: number, ms: number) {
  const child: ChildProcess = spawn("npm", ["run", script], {
    cwd: copy,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/root" } as Record<
      string,
      string
    > as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const signal = (name: NodeJS.Signals | 0) => {
    try {
      process.kill(-child.pid!, name);
      return true;
    } catch {
      return false; // the process group is gone
    }
  };
  /** Stops npm, Next.js and its workers (one process group), and waits until none is left writing to the copy. */
  const stop = async () => {
    signal("SIGTERM");
    for (let waited = 0; signal(0); waited += 200) {
      if (waited === 10_000) signal("SIGKILL");
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  const deadline = Date.now() + ms;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm run ${script} exited with ${child.exitCode}:\n${output}`);
    const answered = await fetch(`http://127.0.0.1:${port}/health`).then(
      (r) => r.status,
      () => 0,
    );
    if (answered === 200) return { stop, output: () => output };
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`nothing answered on port ${port} from .env within ${ms} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

describe("PORT given only in .env", () => {
  it("is the port npm start listens on", async () => {
    const port = await freePort();
    writeFileSync(
      path.join(copy, ".env"),
      [
        `PORT=${port}`,
        `APP_URL=http://127.0.0.1:${port}`,
        `SESSION_SECRET=${INSTANCE_SECRETS.SESSION_SECRET}`,
        `ENCRYPTION_KEY=${INSTANCE_SECRETS.ENCRYPTION_KEY}`,
        "ALLOW_IN_MEMORY_STORE=true",
        "LOG_LEVEL=error",
      ].join("\n"),
    );
    const app = await run("start", port, 90_000);
    expect(app.output()).toContain(`ready on http://localhost:${port}`);
    await app.stop();
  }, 120_000);

  it("is the port npm run dev listens on", async () => {
    rmSync(path.join(copy, ".next"), { recursive: true, force: true }); // the dev server builds its own, here
    const port = await freePort();
    writeFileSync(path.join(copy, ".env"), `PORT=${port}\nLOG_LEVEL=error\n`);
    const dev = await run("dev", port, 240_000);
    await dev.stop();
  }, 300_000);
});
