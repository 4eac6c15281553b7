/**
 * A private PostgreSQL cluster for fault tests: its own data directory and port, so a test can stop and start it
 * without touching the machine's shared server (other test files use that one at the same time).
 * initdb refuses to run as root: as root, the cluster runs as the `postgres` user, in a directory it owns.
 */
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";

export type PrivatePostgres = {
  url: string;
  port: number;
  start(): void;
  stop(): void;
  destroy(): void;
};

function postgresBin(): string {
  const base = "/usr/lib/postgresql";
  const versions = existsSync(base)
    ? readdirSync(base)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const found = versions.map((v) => path.join(base, v, "bin")).find((dir) => existsSync(path.join(dir, "initdb")));
  if (!found)
    throw new Error("PostgreSQL server binaries not found under /usr/lib/postgresql (apt-get install postgresql)");
  return found;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

export async function createPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBin();
  const asRoot = userInfo().uid === 0;
  const dir = mkdtempSync(path.join(tmpdir(), "sw-private-pg-"));
  const dataDir = path.join(dir, "data");
  const logFile = path.join(dir, "server.log");
  if (asRoot) chownSync(dir, uidOf("postgres"), gidOf("postgres"));
  const run = (tool: string, args: string[]) => {
    const command = path.join(bin, tool);
    const [file, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, args];
    return execFileSync(file, argv, { cwd: dir, stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 }).toString();
  };
  run("initdb", ["-D", dataDir, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"]);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=50`;
  const cluster: PrivatePostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start: () => void run("pg_ctl", ["start", "-D", dataDir, "-l", logFile, "-w", "-t", "30", "-o", options]),
    stop: () => void run("pg_ctl", ["stop", "-D", dataDir, "-m", "fast", "-w", "-t", "30"]),
    destroy: () => {
      try {
        run("pg_ctl", ["stop", "-D", dataDir, "-m", "immediate", "-w", "-t", "30"]);
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  cluster.start();
  return cluster;
}

function uidOf(user: string): number {
  return Number(execFileSync("id", ["-u", user]).toString().trim());
}
function gidOf(user: string): number {
  return Number(execFileSync("id", ["-g", user]).toString().trim());
}
