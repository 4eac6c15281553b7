/** Starts app instances (test/reliability/support/app-instance.ts) as separate processes and talks to them over HTTP. */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

export const INSTANCE_SECRETS = {
  SESSION_SECRET: "reliability-session-secret-of-at-least-32-chars",
  ENCRYPTION_KEY: "8899aabbccddeeff00112233445566778899aabbccddeeff0011223344556677",
};

export type AppInstance = {
  url: string;
  pid: number;
  /** What the instance wrote to stderr (errors are logged there): shown when a test fails. */
  stderr(): string;
  stop(): Promise<void>;
};

const repoRoot = path.resolve(import.meta.dirname, "../../..");
const script = path.join(import.meta.dirname, "app-instance.ts");

/** A production-mode instance on a free loopback port, with the given database (empty = in memory). */
export async function startInstance(options: {
  databaseUrl: string;
  env?: Record<string, string>;
}): Promise<AppInstance> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/root",
    NODE_ENV: "production",
    LOG_LEVEL: "error",
    APP_URL: "http://localhost:3000",
    DATABASE_URL: options.databaseUrl,
    ...INSTANCE_SECRETS,
    SITE_HOST_ALLOWLIST: "localhost",
    AUTH_RATE_LIMIT: "100000",
    REDEEM_RATE_LIMIT: "100000",
    OPENAI_API_KEY: "",
    SANDBOX_DRIVER: "",
    ...(process.env.NODE_EXTRA_CA_CERTS ? { NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS } : {}),
    ...options.env,
  };
  const child = spawn(process.execPath, ["--import", "tsx", script], {
    cwd: repoRoot,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-20_000);
  });
  const port = await new Promise<number>((resolve, reject) => {
    let stdout = "";
    const timer = setTimeout(() => reject(new Error(`app instance did not start in 60 s:\n${stderr}`)), 60_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const ready = /READY (\d+)/.exec(stdout);
      if (ready) {
        clearTimeout(timer);
        resolve(Number(ready[1]));
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`app instance exited with ${code}:\n${stderr}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    stderr: () => stderr,
    stop: () => stopChild(child),
  };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill("SIGKILL"), 5000);
    child.once("exit", () => {
      clearTimeout(force);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

export type HttpResult = { status: number; json: any; text: string; headers: Headers; cookie?: string };

/** One request to an instance, answering like test/http.ts's `call()` does for in-process handlers. */
export async function request(
  baseUrl: string,
  pathname: string,
  options: {
    method?: string;
    body?: unknown;
    cookie?: string;
    headers?: Record<string, string>;
    timeoutMs?: number;
  } = {},
): Promise<HttpResult> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers["content-type"] ??= "application/json";
  if (options.cookie) headers.cookie = options.cookie;
  const response = await fetch(`${baseUrl}${pathname}`, {
    method: options.method ?? (options.body === undefined ? "GET" : "POST"),
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: AbortSignal.timeout(options.timeoutMs ?? 120_000),
  });
  const text = await response.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  const cookie =
    response.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ") || undefined;
  return { status: response.status, json, text, headers: response.headers, cookie };
}

/** Polls until `check` is true (or throws after `timeoutMs`), returning the last value seen. */
export async function waitFor<T>(
  probe: () => Promise<T>,
  check: (value: T) => boolean,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      last = await probe();
      if (check(last)) return last;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(
    `timed out after ${timeoutMs} ms waiting for ${what}; last: ${JSON.stringify(last) ?? String(lastError)}`,
  );
}
