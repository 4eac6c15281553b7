/**
 * The operator's path (docs/deployment.md): build the app image with `npm run deploy:image` (no registry), give
 * Podman's API to the image's group on a socket of its own (what deploy/systemd/sitewright-podman.socket does), write
 * the env file from deploy/sitewright.env.example, and start the container with the very command
 * deploy/systemd/sitewright.service runs, against this machine's PostgreSQL with a fresh database. Then the checks
 * an operator makes: /health, a sign-up, JSON log lines with request ids, and the app's sandboxes gone after stop.
 * Needs the production build (.next, made by `npm run build`; scripts/test.sh builds before vitest).
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminUrl } from "@/lib/db/testing";
import { namespaceFor } from "@/lib/sandbox/config";
import { LABEL_NAMESPACE } from "@/lib/sandbox/engine";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
const APP_GID = 10002; // the image's user and group (scripts/deploy/build-image.ts)
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const name = `sitewright-test-${randomBytes(4).toString("hex")}`;
const database = `sw_deploy_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`;
const work = mkdtempSync(path.join(tmpdir(), "sitewright-deploy-"));
const socket = path.join(work, "podman.sock");
let engine: ChildProcess | undefined;
let app: ChildProcess | undefined;
let base = "";
let databaseUrl = "";
const output: string[] = [];

/** The last line a script printed on stdout (both image scripts print their tag there). */
async function lastLine(command: string, args: string[]) {
  const { stdout } = await run(command, args, { cwd: root, maxBuffer: 16 * 1024 * 1024, timeout: 600_000 });
  return stdout.trim().split("\n").at(-1)!;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The complete JSON lines the app wrote so far (a line still being written is left out). */
function jsonLines(): string[] {
  const text = output.join("");
  return text
    .slice(0, text.lastIndexOf("\n") + 1)
    .split("\n")
    .filter((line) => line.startsWith("{"));
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; app output:\n${output.join("")}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
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

/** The unit's ExecStart (after its `EnvironmentFile`'s image), pointed at this test's env file, socket and name. */
function unitCommand(unit: string, image: string, envFile: string): string[] {
  const execStart = /^ExecStart=(.+)$/m.exec(unit)?.[1];
  if (!execStart) throw new Error("deploy/systemd/sitewright.service has no ExecStart");
  return execStart
    .split(/\s+/)
    .map((word) =>
      word
        .replace(/^\$\{SITEWRIGHT_IMAGE\}$/, image)
        .replace("/etc/sitewright/sitewright.env", envFile)
        .replace(/^\/run\/sitewright\/podman\.sock:/, `${socket}:`),
    )
    .map((word, index, words) => (words[index - 1] === "--name" ? name : word));
}

const sandboxContainers = async (namespace: string) =>
  (await run("podman", ["ps", "-a", "-q", "--filter", `label=${LABEL_NAMESPACE}=${namespace}`])).stdout
    .trim()
    .split("\n")
    .filter(Boolean);

beforeAll(async () => {
  if (!existsSync(path.join(root, ".next", "BUILD_ID"))) throw new Error("no production build: run `npm run build`");
  const [image, sandboxImage] = await Promise.all([
    lastLine("npm", ["run", "--silent", "deploy:image"]),
    lastLine("npm", ["run", "--silent", "sandbox:image"]),
  ]);

  // The sandbox engine, as sitewright-podman.socket opens it: root and the app's group only.
  engine = spawn("podman", ["system", "service", "--time=0", `unix://${socket}`], { stdio: "ignore" });
  await waitFor("the Podman API socket", async () => (existsSync(socket) ? true : undefined), 30_000);
  chownSync(socket, 0, APP_GID);
  chmodSync(socket, 0o660);

  await adminSql(`create database "${database}"`);
  const url = new URL(adminUrl());
  url.pathname = `/${database}`;
  databaseUrl = url.toString();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const settings: Record<string, string> = {
    PORT: String(port),
    APP_URL: base,
    TRUSTED_PROXY_HOPS: "0",
    DATABASE_URL: databaseUrl,
    SESSION_SECRET: randomBytes(48).toString("base64url"),
    ENCRYPTION_KEY: randomBytes(32).toString("hex"),
    SANDBOX_IMAGE: sandboxImage,
    SANDBOX_POOL_SIZE: "1",
  };
  const envFile = path.join(work, "sitewright.env");
  const template = readFileSync(path.join(root, "deploy/sitewright.env.example"), "utf8");
  writeFileSync(
    envFile,
    template.replace(/^([A-Z_]+)=.*$/gm, (line, key: string) => (key in settings ? `${key}=${settings[key]}` : line)),
    { mode: 0o600 },
  );

  const [command, ...args] = unitCommand(
    readFileSync(path.join(root, "deploy/systemd/sitewright.service"), "utf8"),
    image,
    envFile,
  );
  app = spawn(command!, args, { stdio: ["ignore", "pipe", "pipe"] });
  app.stdout!.on("data", (chunk) => output.push(String(chunk)));
  app.stderr!.on("data", (chunk) => output.push(String(chunk)));
  await waitFor("/health", async () => ((await fetch(`${base}/health`)).ok ? true : undefined), 90_000);
}, 600_000);

afterAll(async () => {
  await run("podman", ["rm", "--force", "--ignore", name]).catch(() => {});
  app?.kill();
  const leftovers = databaseUrl ? await sandboxContainers(namespaceFor(databaseUrl)).catch(() => []) : [];
  if (leftovers.length > 0) await run("podman", ["rm", "--force", ...leftovers]).catch(() => {});
  engine?.kill();
  await adminSql(`drop database if exists "${database}" with (force)`).catch(() => {});
  rmSync(work, { recursive: true, force: true });
}, 120_000);

describe("an operator starts the stack from deploy/ as docs/deployment.md says", () => {
  let signupRequestId = "";

  it("answers /health with status ok and the store ok", async () => {
    const response = await fetch(`${base}/health`);
    const body = (await response.json()) as { status: string; checks: Record<string, string> };
    expect(body.status).toBe("ok");
    expect(body.checks.store).toBe("ok");
    expect(response.headers.get("x-request-id")).toMatch(UUID);
  });

  it("passes the health check deploy/compose.yaml declares, run inside the container", async () => {
    const compose = readFileSync(path.join(root, "deploy/compose.yaml"), "utf8");
    // The app's healthcheck (the first `test:` list; formatters may spread it over lines, with a trailing comma).
    const list = /healthcheck:[\s\S]*?test:\s*(\[[\s\S]*?\])/.exec(compose)![1]!.replace(/,\s*\]$/, "]");
    const [kind, ...command] = JSON.parse(list) as string[];
    expect(kind).toBe("CMD");
    await expect(run("podman", ["exec", name, ...command], { timeout: 30_000 })).resolves.toBeDefined();
  });

  it("lets a new owner sign up, with the account in PostgreSQL", async () => {
    const response = await fetch(`${base}/auth/signup`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: base },
      body: JSON.stringify({ email: "operator@example.com", password: "an operator's long passphrase 7" }),
    });
    expect(response.status).toBe(201);
    expect(response.headers.get("set-cookie")).toContain("sw_session=");
    signupRequestId = response.headers.get("x-request-id")!;
    expect(signupRequestId).toMatch(UUID);
    const { default: postgres } = await import("postgres");
    const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
    try {
      expect(await sql`select email from users`).toEqual([{ email: "operator@example.com" }]);
    } finally {
      await sql.end();
    }
  });

  it("writes its logs as JSON lines, one access line per request with its request id and no secrets", async () => {
    const access = await waitFor(
      "the sign-up's access line",
      async () =>
        jsonLines()
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .find((record) => record.message === "request" && record.requestId === signupRequestId),
      10_000,
    );
    expect(access).toMatchObject({ level: "info", method: "POST", path: "/auth/signup", status: 201 });
    expect(typeof access.durationMs).toBe("number");
    const lines = jsonLines();
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(output.join("")).not.toContain("passphrase");
  });

  it("removes its own sandbox containers when it is stopped as the unit stops it", async () => {
    const namespace = namespaceFor(databaseUrl);
    await waitFor(
      "the warm pool's sandbox container",
      async () => ((await sandboxContainers(namespace)).length > 0 ? true : undefined),
      120_000,
    );
    const unit = readFileSync(path.join(root, "deploy/systemd/sitewright.service"), "utf8");
    const stop = /^ExecStop=(.+)$/m.exec(unit)![1]!.split(/\s+/);
    await run(stop[0]!, [...stop.slice(1, -1), name], { timeout: 60_000 });
    expect(await sandboxContainers(namespace)).toEqual([]);
    expect(output.join("")).toContain("sandboxes removed at shutdown");
  }, 200_000);
});
