/**
 * The production build the benchmarks run against, and `npm start`'s server (server.mjs) on it.
 *
 * The HTTP benchmark compares /health with an empty route handler served by the same server from the same build.
 * That empty route must never ship: instead of adding it to app/ (where it would need a production switch), the
 * bench copies the app's sources to `.cache/bench-app/`, adds `app/bench/empty/route.ts` there, and runs
 * `next build` on the copy. The copy is the app's own code and config with one extra route, built the same way
 * as `npm run build`; it is rebuilt only when a source file changed (a hash of every copied file).
 * `.cache/` is gitignored; the copy holds no test files, and TypeScript skips dot-folders, so no other tool sees it.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { npmStartArgs } from "@/test/start-command";
import { sleep } from "./stats";

export const repoRoot = path.resolve(import.meta.dirname, "../..");
const benchApp = path.join(repoRoot, ".cache", "bench-app");
const nextBin = path.join(repoRoot, "node_modules", "next", "dist", "bin", "next");

const SOURCE_DIRS = ["app", "lib", "drizzle", "public"];
/**
 * Root files that are not the app: hidden files (`npm run dev` writes .dev-secrets.json), test runners' configs (each may import another: playwright.kubernetes.config.ts
 * imports playwright.config.ts), drizzle-kit's, the lockfile. A pattern, so a new config cannot break the copy.
 */
const isSkippedRootFile = (file: string) =>
  file.startsWith(".") || // .dev-secrets.json and the like: a developer's own, never part of the copy or its hash
  /^(vitest|playwright)(\.[\w-]+)?\.config\.ts$/.test(file) ||
  file === "drizzle.config.ts" ||
  file === "package-lock.json";
/** Tests and test helpers (lib/**\/testing, lib/db/testing.ts) are not part of the app and may import scripts/. */
const isSource = (file: string) => !/\.test\.tsx?$/.test(file) && !/(^|\/)testing(\/|\.ts$)/.test(file);
/** The app's imports of repository files (`@/plugin/vocabulary.json`, `./scripts/lib/listen-port.mjs`). */
const REPO_IMPORT = /(?:from|import)\s*\(?\s*["'](@\/|\.{1,2}\/)([^"']+)["']/g;

export const EMPTY_ROUTE = `// Benchmark only (bench/lib/app.ts): the cheapest route handler Next.js can serve, to compare /health against.
export function GET() {
  return new Response('{"status":"ok"}', { headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" } });
}
`;

/** The file an import names, as a path from the repository's root, when it exists outside SOURCE_DIRS. */
function importTarget(from: string, prefix: string, rest: string): string | undefined {
  const specifier = prefix === "@/" ? rest : path.join(path.dirname(from), prefix, rest);
  if (specifier.startsWith("..") || SOURCE_DIRS.includes(specifier.split("/")[0]!)) return undefined;
  for (const candidate of [specifier, `${specifier}.ts`, `${specifier}.tsx`, `${specifier}/index.ts`]) {
    const full = path.join(repoRoot, candidate);
    if (existsSync(full) && statSync(full).isFile()) return candidate;
  }
  return undefined;
}

/** Adds what the copied sources import from outside SOURCE_DIRS (and what those import in turn). */
function withImportedFiles(files: string[]): string[] {
  const all = new Set(files);
  const queue = [...files];
  while (queue.length) {
    const file = queue.pop()!;
    if (!/\.(ts|tsx|mjs|js)$/.test(file)) continue;
    for (const match of readFileSync(path.join(repoRoot, file), "utf8").matchAll(REPO_IMPORT)) {
      const target = importTarget(file, match[1]!, match[2]!);
      if (target && !all.has(target)) {
        all.add(target);
        queue.push(target);
      }
    }
  }
  return [...all];
}

/** Every file the bench's copy of the app holds (before its extra route), sorted. */
export function sourceFiles(): string[] {
  const files: string[] = [];
  for (const dir of SOURCE_DIRS) {
    const full = path.join(repoRoot, dir);
    if (!existsSync(full)) continue;
    for (const entry of readdirSync(full, { recursive: true, encoding: "utf8" })) {
      const relative = path.join(dir, entry);
      if (statSync(path.join(repoRoot, relative)).isFile() && isSource(relative)) files.push(relative);
    }
  }
  for (const entry of readdirSync(repoRoot)) {
    if (
      /\.(ts|tsx|mjs|cjs|js|json)$/.test(entry) &&
      !isSkippedRootFile(entry) &&
      statSync(path.join(repoRoot, entry)).isFile()
    )
      files.push(entry);
  }
  return withImportedFiles(files).sort();
}

function hashOf(files: string[]): string {
  const hash = createHash("sha256").update(EMPTY_ROUTE);
  for (const file of files)
    hash
      .update(file)
      .update("\0")
      .update(readFileSync(path.join(repoRoot, file)))
      .update("\0");
  return hash.digest("hex");
}

/** Copies the sources, adds the empty route, and builds, unless the last build came from the same sources. */
export function ensureBenchBuild(log: (line: string) => void): { dir: string; built: boolean; buildSeconds: number } {
  const files = sourceFiles();
  const hash = hashOf(files);
  const stamp = path.join(benchApp, ".sources-hash");
  if (
    existsSync(path.join(benchApp, ".next", "BUILD_ID")) &&
    existsSync(stamp) &&
    readFileSync(stamp, "utf8") === hash
  ) {
    return { dir: benchApp, built: false, buildSeconds: 0 };
  }
  log("building the production app with the benchmark's empty route (about a minute)...");
  for (const entry of existsSync(benchApp) ? readdirSync(benchApp) : []) {
    if (entry !== ".next") rmSync(path.join(benchApp, entry), { recursive: true, force: true });
  }
  mkdirSync(benchApp, { recursive: true });
  for (const file of files) {
    mkdirSync(path.dirname(path.join(benchApp, file)), { recursive: true });
    cpSync(path.join(repoRoot, file), path.join(benchApp, file));
  }
  mkdirSync(path.join(benchApp, "app", "bench", "empty"), { recursive: true });
  writeFileSync(path.join(benchApp, "app", "bench", "empty", "route.ts"), EMPTY_ROUTE);
  const started = performance.now();
  const result = spawnSync(process.execPath, [nextBin, "build"], {
    cwd: benchApp,
    env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) {
    throw new Error(`next build failed (exit ${result.status}):\n${(result.stdout + result.stderr).slice(-4000)}`);
  }
  writeFileSync(stamp, hash);
  return { dir: benchApp, built: true, buildSeconds: (performance.now() - started) / 1000 };
}

export type RunningApp = { url: string; pid: number; stop(): Promise<void>; output(): string };

/** `npm start`'s server on the bench build, on a free loopback port, in production mode. */
export async function startApp(
  dir: string,
  options: { databaseUrl: string; env?: Record<string, string> },
): Promise<RunningApp> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(process.execPath, [...npmStartArgs(), "-p", String(port), "-H", "127.0.0.1"], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/root",
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      LOG_LEVEL: "warn",
      APP_URL: url,
      DATABASE_URL: options.databaseUrl,
      SESSION_SECRET: randomBytes(32).toString("base64url"),
      ENCRYPTION_KEY: randomBytes(32).toString("hex"),
      SITE_HOST_ALLOWLIST: "localhost",
      AUTH_RATE_LIMIT: "1000000",
      REDEEM_RATE_LIMIT: "1000000",
      OPENAI_API_KEY: "",
      SANDBOX_DRIVER: "",
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  // PGlite migrates in the server's own process at start: minutes on a loaded two-core machine, not seconds.
  const startMs = 240_000;
  const deadline = Date.now() + startMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}:\n${output}`);
    try {
      const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(10_000) });
      await response.text();
      if (response.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`the server did not answer /health with 200 in ${startMs / 1000} s:\n${output}`);
    }
    await sleep(250);
  }
  return {
    url,
    pid: child.pid!,
    output: () => output,
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

export async function freePort(): Promise<number> {
  const { createServer } = await import("node:net");
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
