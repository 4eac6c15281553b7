/**
 * Runs the app as people run it, for the specs that need their own instance: `npm start` (server.mjs) from the production
 * build, or `npm run dev` exactly as the README says. Each runs in its own process group, so stopping it stops
 * npm, Next.js and its workers together.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, openSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { npmStartArgs } from "../../test/start-command";

export const ROOT = path.resolve(import.meta.dirname, "../..");

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });

/**
 * Every variable of the app's configuration (docs/api.md, Configuration, and lib/env.ts) plus NODE_ENV: removed
 * from the environment a spec inherits, so an instance sees only what the spec gives it.
 */
const APP_VARIABLES = [
  "NODE_ENV",
  "PORT",
  "APP_URL",
  "DATABASE_URL",
  "SESSION_SECRET",
  "ENCRYPTION_KEY",
  "OPENAI_API_KEY",
  "OPENAI_BASE_URL",
  "AGENT_MODEL",
  "AGENT_OPERATIONS",
  "AGENT_MAX_STEPS",
  "AGENT_MAX_TOOL_CALLS",
  "AGENT_MAX_TOKENS",
  "AGENT_TIMEOUT_MS",
  "SANDBOX_DRIVER",
  "DOCKER_HOST",
  "SANDBOX_IMAGE",
  "SANDBOX_POOL_SIZE",
  "SANDBOX_MAX",
  "SANDBOX_MAX_PER_USER",
  "SANDBOX_TTL_MINUTES",
  "SITE_HOST_ALLOWLIST",
  "SITEWRIGHT_CACHE",
  "AUTH_RATE_LIMIT",
  "PASSWORD_HASH_CONCURRENCY",
  "REDEEM_RATE_LIMIT",
  "LOG_LEVEL",
  "TRUSTED_PROXY_HOPS",
];

export function environmentWithout(extra: Record<string, string> = {}): Record<string, string> {
  const clean: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !APP_VARIABLES.includes(name) && !name.startsWith("__NEXT")) clean[name] = value;
  }
  return { ...clean, ...extra };
}

export type AppProcess = { url: string; port: number; log: string; stop(): Promise<void> };

export async function waitForHealth(url: string, child: ChildProcess, ms: number, log?: string) {
  const deadline = Date.now() + ms;
  for (;;) {
    if (child.exitCode !== null) {
      const tail = log ? readFileSync(log, "utf8").slice(-1500) : "";
      throw new Error(`the app exited with ${child.exitCode} before answering\n${tail}`);
    }
    try {
      const res = await fetch(`${url}/health`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url}/health did not answer within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

export function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    }, 10_000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      clearTimeout(timer);
      resolve();
    }
  });
}

function launch(command: string, args: string[], env: Record<string, string>, name: string, port: number) {
  mkdirSync(path.join(ROOT, ".cache"), { recursive: true });
  const log = path.join(ROOT, ".cache", `${name}.log`);
  const out = openSync(log, "a");
  const child = spawn(command, args, {
    cwd: ROOT,
    env: env as NodeJS.ProcessEnv,
    stdio: ["ignore", out, out],
    detached: true,
  });
  const url = `http://localhost:${port}`;
  return { child, url, log };
}

/**
 * The production build as `npm start` runs it (`server.mjs`: Next's handler behind the server that decides client
 * addresses), on loopback, with `env` as its configuration (APP_URL: its own address).
 */
export function startProductionApp(name: string, env: Record<string, string>): Promise<AppProcess> {
  return onAFreePort(() => startProductionAppOnce(name, env));
}

/**
 * A port from the OS may be taken by another process before the app binds it (seconds later, after Next.js has
 * prepared): then the app says `already in use` and exits, and it starts again on another port, up to three times.
 */
async function onAFreePort(start: () => Promise<AppProcess>): Promise<AppProcess> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await start();
    } catch (error) {
      if (attempt >= 3 || !/already in use|EADDRINUSE/i.test(String(error))) throw error;
    }
  }
}

async function startProductionAppOnce(name: string, env: Record<string, string>): Promise<AppProcess> {
  const port = await freePort();
  const { child, url, log } = launch(
    process.execPath,
    [...npmStartArgs({ absolute: true }), "-p", String(port), "-H", "127.0.0.1"],
    environmentWithout({ NODE_ENV: "production", PORT: String(port), APP_URL: `http://localhost:${port}`, ...env }),
    name,
    port,
  );
  await waitForHealth(url, child, 90_000, log);
  return { url, port, log, stop: () => stopGroup(child) };
}

/**
 * `npm run dev` as the README says, with no app configuration. `extra` is for what is not app configuration
 * (NODE_EXTRA_CA_CERTS) and for the PORT: this machine is shared, so 3000 may be taken.
 */
export function startDevServer(name: string, extra: Record<string, string>): Promise<AppProcess> {
  return onAFreePort(() => startDevServerOnce(name, extra));
}

async function startDevServerOnce(name: string, extra: Record<string, string>): Promise<AppProcess> {
  const port = await freePort();
  const { child, url, log } = launch(
    "npm",
    ["run", "dev"],
    environmentWithout({ PORT: String(port), ...extra }),
    name,
    port,
  );
  await waitForHealth(url, child, 180_000, log);
  return { url, port, log, stop: () => stopGroup(child) };
}
