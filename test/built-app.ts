/**
 * The built app as `npm start` runs it (server.mjs over `next build`'s output), as its own process on a loopback
 * port, configured only by its environment: for tests of what only the real server shows (Next.js decoding paths
 * before any route code, the client address server.mjs stamps). Needs `npm run build` first (npm test builds
 * before vitest).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { INSTANCE_SECRETS } from "@/test/reliability/support/instances";
import { freePort } from "@/test/reliability/support/private-postgres";
import { npmStartArgs } from "@/test/start-command";

const root = path.resolve(import.meta.dirname, "..");

export type BuiltApp = {
  url: string;
  port: number;
  stop(): Promise<void>;
  /** SIGKILL, as a crash or the OOM killer would: no shutdown code runs. */
  kill(): Promise<void>;
  output(): string;
};

/** On a free port from the OS; another process may take it first, so: EADDRINUSE retries. */
export async function startBuiltApp(env: Record<string, string>): Promise<BuiltApp> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await launchBuiltApp(env, await freePort());
    } catch (error) {
      if (attempt >= 3 || !String(error).includes("EADDRINUSE")) throw error;
    }
  }
}

/** On exactly this port; rejects with server.mjs's output if it exits or does not answer /health in 60 s. */
export async function launchBuiltApp(env: Record<string, string>, port: number): Promise<BuiltApp> {
  if (!existsSync(path.join(root, ".next", "BUILD_ID"))) {
    throw new Error("No production build: run `npm run build` first (npm test does).");
  }
  const child: ChildProcess = spawn(process.execPath, [...npmStartArgs(), "-p", String(port), "-H", "127.0.0.1"], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/root",
      NODE_ENV: "production",
      LOG_LEVEL: "error",
      APP_URL: `http://127.0.0.1:${port}`,
      ...INSTANCE_SECRETS,
      OPENAI_API_KEY: "",
      SANDBOX_DRIVER: "",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server.mjs exited with ${child.exitCode}:\n${output}`);
    try {
      if ((await fetch(`${url}/health`)).status < 500) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`server.mjs did not answer in 60 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url,
    port,
    output: () => output,
    kill: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const force = setTimeout(() => child.kill("SIGKILL"), 5000);
        child.once("exit", () => {
          clearTimeout(force);
          resolve();
        });
        child.kill("SIGTERM");
      }),
  };
}
