/**
 * The operator's path (docs/deployment.md): build the app image with `npm run deploy:image` (no registry), give
 * Podman's API to the engine proxy's group on a socket of its own (what deploy/systemd/sitewright-podman.socket
 * does), write the env file from deploy/sitewright.env.example, and start the engine proxy and the app with the very
 * commands deploy/systemd/sitewright-engine-proxy.service and sitewright.service run, against this machine's
 * PostgreSQL with a fresh database. Then the checks an operator makes: /health, a sign-up, JSON log lines with
 * request ids, the container's hardening seen from inside, sandboxes started through the proxy (and the app refused
 * anything else), and the app's sandboxes gone after stop. Then the same stack as deploy/compose.yaml describes it.
 * Needs the production build (.next, made by `npm run build`; scripts/test.sh builds before vitest).
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { adminUrl } from "@/lib/db/testing";
import { namespaceFor } from "@/lib/sandbox/config";
import { LABEL_NAMESPACE } from "@/lib/sandbox/engine";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
const APP_GID = 10002; // the image's user and group (scripts/deploy/build-image.ts)
const PROXY_UID = 10003; // the engine proxy's user, and the group the engine's socket is given to
const ENGINE_GID = 10003;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const name = `sitewright-test-${randomBytes(4).toString("hex")}`;
const database = `sw_deploy_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`;
const work = mkdtempSync(path.join(tmpdir(), "sitewright-deploy-"));
const socket = path.join(work, "podman.sock");
const engineDir = path.join(work, "engine");
const proxyName = `${name}-engine-proxy`;
let engine: ChildProcess | undefined;
let app: ChildProcess | undefined;
let proxy: ChildProcess | undefined;
let image = "";
let envFile = "";
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

/**
 * A unit's ExecStart (after its `EnvironmentFile`'s image) pointed at this test's env file, sockets and names, its
 * `${VAR}`s expanded as systemd would (unset ones are empty).
 */
function unitCommand(unitFile: string, containerName: string): string[] {
  const unit = readFileSync(path.join(root, unitFile), "utf8");
  const execStart = /^ExecStart=(.+)$/m.exec(unit)?.[1];
  if (!execStart) throw new Error(`${unitFile} has no ExecStart`);
  return execStart
    .split(/\s+/)
    .map((word) =>
      word
        .replace(/^\$\{SITEWRIGHT_IMAGE\}$/, image)
        .replace("/etc/sitewright/sitewright.env", envFile)
        .replace(/^\/run\/sitewright\/podman\.sock:/, `${socket}:`)
        .replace(/^\/run\/sitewright\/engine:/, `${engineDir}:`),
    )
    .map((word, index, words) => (words[index - 1] === "--name" ? containerName : word));
}

/** Starts a container in the foreground as systemd would, its output kept. */
function startContainer(command: string[]): ChildProcess {
  const child = spawn(command[0]!, command.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
  child.stdout!.on("data", (chunk) => output.push(String(chunk)));
  child.stderr!.on("data", (chunk) => output.push(String(chunk)));
  return child;
}

/** A script run by Node inside the app's container (the image has no shell); its stdout. */
async function nodeInside(container: string, script: string) {
  return (await run("podman", ["exec", container, "node", "-e", script], { timeout: 60_000 })).stdout.trim();
}

/** The proxy's socket directory, as the proxy unit's ExecStartPre makes it. */
function engineSocketDir(dir: string) {
  mkdirSync(dir, { mode: 0o750 });
  chownSync(dir, PROXY_UID, APP_GID);
  chmodSync(dir, 0o750);
}

const sandboxContainers = async (namespace: string) =>
  (await run("podman", ["ps", "-a", "-q", "--filter", `label=${LABEL_NAMESPACE}=${namespace}`])).stdout
    .trim()
    .split("\n")
    .filter(Boolean);

beforeAll(async () => {
  if (!existsSync(path.join(root, ".next", "BUILD_ID"))) throw new Error("no production build: run `npm run build`");
  const [built, sandboxImage] = await Promise.all([
    lastLine("npm", ["run", "--silent", "deploy:image"]),
    lastLine("npm", ["run", "--silent", "sandbox:image"]),
  ]);
  image = built;

  // The sandbox engine, as sitewright-podman.socket opens it: root and the proxy's group only.
  engine = spawn("podman", ["system", "service", "--time=0", `unix://${socket}`], { stdio: "ignore" });
  await waitFor("the Podman API socket", async () => (existsSync(socket) ? true : undefined), 30_000);
  chownSync(socket, 0, ENGINE_GID);
  chmodSync(socket, 0o660);
  engineSocketDir(engineDir);

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
  envFile = path.join(work, "sitewright.env");
  const template = readFileSync(path.join(root, "deploy/sitewright.env.example"), "utf8");
  writeFileSync(
    envFile,
    template.replace(/^([A-Z_]+)=.*$/gm, (line, key: string) => (key in settings ? `${key}=${settings[key]}` : line)),
    { mode: 0o600 },
  );

  proxy = startContainer(unitCommand("deploy/systemd/sitewright-engine-proxy.service", proxyName));
  const proxySocket = path.join(engineDir, "engine.sock");
  await waitFor("the engine proxy's socket", async () => (existsSync(proxySocket) ? true : undefined), 60_000);
  app = startContainer(unitCommand("deploy/systemd/sitewright.service", name));
  await waitFor("/health", async () => ((await fetch(`${base}/health`)).ok ? true : undefined), 90_000);
}, 900_000);

afterAll(async () => {
  for (const container of [name, proxyName, `${name}-compose-app`, `${name}-compose-proxy`]) {
    await run("podman", ["rm", "--force", "--ignore", container]).catch(() => {});
  }
  app?.kill();
  proxy?.kill();
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
    const [kind, ...command] = composeServices().app!.healthcheck!.test;
    expect(kind).toBe("CMD");
    await expect(run("podman", ["exec", name, ...command], { timeout: 30_000 })).resolves.toBeDefined();
  });

  it("runs read-only, as uid 10002, with no capability and no new privileges, and without the engine's socket", async () => {
    const status = await nodeInside(name, "process.stdout.write(require('fs').readFileSync('/proc/1/status','utf8'))");
    expect(status).toMatch(/^Uid:\s+10002\s/m);
    expect(status).toMatch(/^CapEff:\s+0000000000000000$/m);
    expect(status).toMatch(/^CapBnd:\s+0000000000000000$/m);
    expect(status).toMatch(/^NoNewPrivs:\s+1$/m);
    const write = await nodeInside(
      name,
      "try{require('fs').writeFileSync('/app/server.mjs','x');console.log('written')}catch(e){console.log(e.code)}",
    );
    expect(write).toBe("EROFS");
    const sockets = await nodeInside(
      name,
      "const fs=require('fs');console.log(['/run/sitewright/podman.sock','/run/podman/podman.sock','/var/run/docker.sock'].filter(p=>fs.existsSync(p)).join())",
    );
    expect(sockets).toBe("");
  });

  it("reaches the engine only through the proxy, which refuses the app anything the sandbox driver does not do", async () => {
    const answer = await nodeInside(
      name,
      "require('http').get({socketPath:'/run/sitewright/engine/engine.sock',path:'/info'},r=>console.log(r.statusCode))",
    );
    expect(answer).toBe("403");
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

  it("starts sandboxes through the proxy, and removes them when it is stopped as the unit stops it", async () => {
    const namespace = namespaceFor(databaseUrl);
    await waitFor(
      "the warm pool's sandbox container",
      async () => ((await sandboxContainers(namespace)).length > 0 ? true : undefined),
      120_000,
    );
    const proxyLog =
      (await run("podman", ["logs", proxyName])).stderr + (await run("podman", ["logs", proxyName])).stdout;
    expect(proxyLog.split("\n").filter((line) => line.includes("engine call refused"))).toEqual([
      expect.stringContaining('"path":"/info"'),
    ]);
    const unit = readFileSync(path.join(root, "deploy/systemd/sitewright.service"), "utf8");
    const stop = /^ExecStop=(.+)$/m.exec(unit)![1]!.split(/\s+/);
    await run(stop[0]!, [...stop.slice(1, -1), name], { timeout: 60_000 });
    expect(await sandboxContainers(namespace)).toEqual([]);
    expect(output.join("")).toContain("sandboxes removed at shutdown");
  }, 200_000);
});

type ComposeService = Record<string, unknown> & { healthcheck?: { test: string[] } };

function composeServices(): Record<string, ComposeService> {
  return (
    parse(readFileSync(path.join(root, "deploy/compose.yaml"), "utf8")) as { services: Record<string, ComposeService> }
  ).services;
}

/** Compose's `${VAR}`, `${VAR:-default}` and `${VAR:?message}`, from `values`. */
function interpolate(text: string, values: Record<string, string>): string {
  return text.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, variable: string, kind?: string, rest?: string) => {
    const value = values[variable];
    if (value !== undefined && value !== "") return value;
    if (kind === "-") return rest ?? "";
    throw new Error(`compose.yaml needs ${variable}: ${rest}`);
  });
}

/** What compose does not turn into `podman run` flags: ordering, restarts and the health check (run above). */
const COMPOSE_ONLY = new Set(["depends_on", "restart", "healthcheck", "stop_grace_period"]);

/**
 * `podman run` for one service of deploy/compose.yaml, as Compose would start it (for the keys that file uses; any
 * other key fails the test, so nothing it says is silently dropped). `overrides` stand in for the environment the
 * test machine cannot give as the file expects (the host's PostgreSQL for the postgres service).
 */
function composeCommand(
  service: ComposeService,
  container: string,
  values: Record<string, string>,
  overrides: Record<string, string>,
): string[] {
  const args = ["run", "--rm", "--name", container];
  const image = interpolate(String(service.image), values);
  let command: string[] = [];
  const list = (value: unknown) => (value as unknown[]).map((item) => interpolate(String(item), values));
  for (const [key, value] of Object.entries(service)) {
    if (key === "image" || COMPOSE_ONLY.has(key)) continue;
    if (key === "entrypoint") {
      const [entry, ...rest] = list(value);
      args.push("--entrypoint", entry!);
      command = rest;
    } else if (key === "network_mode") args.push("--network", String(value));
    else if (key === "read_only") args.push(...(value ? ["--read-only"] : []));
    else if (key === "user") args.push("--user", String(value));
    else if (key === "stop_signal") args.push("--stop-signal", String(value));
    else if (key === "cap_drop") for (const cap of list(value)) args.push("--cap-drop", cap);
    else if (key === "security_opt") for (const opt of list(value)) args.push("--security-opt", opt);
    else if (key === "group_add") for (const group of list(value)) args.push("--group-add", group);
    else if (key === "tmpfs") for (const mount of list(value)) args.push("--tmpfs", mount);
    else if (key === "volumes") for (const volume of list(value)) args.push("--volume", volume);
    else if (key === "env_file") args.push("--env-file", overrides.env_file ?? String(value));
    else if (key === "environment") {
      for (const [variable, setting] of Object.entries(value as Record<string, string>)) {
        args.push("--env", `${variable}=${overrides[variable] ?? interpolate(String(setting), values)}`);
      }
    } else throw new Error(`compose.yaml: ${key} is not understood by this test`);
  }
  return ["podman", ...args, image, ...command];
}

describe("the same stack as deploy/compose.yaml describes it", () => {
  const composeDir = path.join(work, "compose-engine");

  beforeAll(async () => {
    await run("podman", ["rm", "--force", "--ignore", name, proxyName]);
    engineSocketDir(composeDir);
    const services = composeServices();
    expect(Object.keys(services).sort()).toEqual(["app", "engine-proxy", "postgres"]);
    const values = {
      SITEWRIGHT_IMAGE: image,
      ENGINE_SOCKET: socket,
      ENGINE_SOCKET_GID: String(ENGINE_GID),
      ENGINE_PROXY_DIR: composeDir,
      POSTGRES_PASSWORD: "unused-here",
    };
    const overrides = { env_file: envFile, DATABASE_URL: databaseUrl };
    startContainer(composeCommand(services["engine-proxy"]!, `${name}-compose-proxy`, values, overrides));
    const proxySocket = path.join(composeDir, "engine.sock");
    await waitFor(
      "the compose engine proxy's socket",
      async () => (existsSync(proxySocket) ? true : undefined),
      60_000,
    );
    startContainer(composeCommand(services.app!, `${name}-compose-app`, values, overrides));
    await waitFor("/health", async () => ((await fetch(`${base}/health`)).ok ? true : undefined), 90_000);
  }, 300_000);

  it("answers /health, passes its health check and starts sandboxes through the proxy", async () => {
    const body = (await (await fetch(`${base}/health`)).json()) as { status: string };
    expect(body.status).toBe("ok");
    const [, ...command] = composeServices().app!.healthcheck!.test;
    await expect(
      run("podman", ["exec", `${name}-compose-app`, ...command], { timeout: 30_000 }),
    ).resolves.toBeDefined();
    const namespace = namespaceFor(databaseUrl);
    await waitFor(
      "the warm pool's sandbox container",
      async () => ((await sandboxContainers(namespace)).length > 0 ? true : undefined),
      120_000,
    );
    const status = await nodeInside(
      `${name}-compose-app`,
      "process.stdout.write(require('fs').readFileSync('/proc/1/status','utf8'))",
    );
    expect(status).toMatch(/^NoNewPrivs:\s+1$/m);
    expect(status).toMatch(/^CapEff:\s+0000000000000000$/m);
    await run("podman", ["stop", "--time", "25", `${name}-compose-app`], { timeout: 60_000 });
    expect(await sandboxContainers(namespace)).toEqual([]);
  }, 200_000);
});
