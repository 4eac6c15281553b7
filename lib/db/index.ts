/**
 * The database: PostgreSQL (postgres-js) when DATABASE_URL is a postgres:// URL, otherwise PGlite running the same
 * migrations and the same queries — kept on disk for `file:<directory>` (a local try that survives restarts, one
 * process at a time), in memory without DATABASE_URL. One instance per process, kept in lib/process-state because Next.js may load this
 * module more than once.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { env } from "@/lib/env";
import { findCause } from "@/lib/errors";
import { log } from "@/lib/log";
import * as schema from "./schema";
import { processState } from "@/lib/process-state";

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type DbHandle = { db: Db; kind: "postgres" | "file" | "memory"; close(): Promise<void> };

const migrationsFolder = path.join(process.cwd(), "drizzle");

export async function openDatabase(url: string | undefined): Promise<DbHandle> {
  if (url && !url.startsWith("file:")) {
    const { default: postgres } = await import("postgres");
    const { drizzle } = await import("drizzle-orm/postgres-js");
    const { migrate } = await import("drizzle-orm/postgres-js/migrator");
    const client = postgres(url, { max: 10, onnotice: () => {}, connect_timeout: 5, idle_timeout: 30 });
    const db = drizzle(client, { schema });
    await underMigrationLock(client, () => migrate(db, { migrationsFolder }));
    return { db: db as unknown as Db, kind: "postgres", close: () => client.end({ timeout: 5 }) };
  }
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  const { migrate } = await import("drizzle-orm/pglite/migrator");
  const directory = url ? path.resolve(url.slice("file:".length).replace(/^\/\/(?=\/)/, "")) : undefined;
  // PGlite makes only the last folder: on a fresh clone `file:.data/sitewright` has no `.data/` yet (README).
  if (directory) mkdirSync(directory, { recursive: true });
  const client = new PGlite({ dataDir: directory, startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS] });
  const db = drizzle(client, { schema });
  await migrate(db, { migrationsFolder });
  collectStartupGarbage();
  return { db: db as unknown as Db, kind: directory ? "file" : "memory", close: () => client.close() };
}

/**
 * The embedded store serves one person trying Sitewright (or one developer), not a fleet: PostgreSQL's shared
 * buffers at 16 MB instead of 128 MB, which PGlite's WebAssembly memory would otherwise grow to hold and never give
 * back (docs/performance.md, "The app's memory").
 */
const PGLITE_SETTINGS = ["-c", "shared_buffers=16MB"];

/**
 * PGlite's start (initdb in a WebAssembly instance of its own, the data folder copied through tar buffers) leaves
 * hundreds of MB of buffers, released a moment after the start (once its last callbacks ran) and then freed only
 * by a full collection, which a server under steady load may not run for a long time (docs/performance.md, "The
 * app's memory"; a collection right at the start frees nothing). So one full collection, once, a second after the
 * store opened. `gc` is Node's own, reached as Jest's leak detector does:
 * V8's `--expose-gc` set at run time, the function taken from a new context.
 */
function collectStartupGarbage() {
  setTimeout(() => {
    try {
      setFlagsFromString("--expose-gc");
      (runInNewContext("gc") as () => void)();
    } catch (error) {
      log.warn("could not collect the embedded store's start-up garbage", { error });
    }
  }, 1_000).unref();
}

/** The advisory lock every instance takes to migrate: any fixed bigint, the same in every version. */
export const MIGRATION_LOCK_KEY = 0x73697465777267n;

/**
 * Instances starting together (a Deployment's replicas) migrate one at a time: drizzle's migrator reads the last
 * applied migration, then applies the rest in a transaction, so two at once would both apply the same ones and one
 * would fail. The lock lives on one reserved connection and ends with it if the process dies.
 */
async function underMigrationLock(client: import("postgres").Sql, work: () => Promise<void>) {
  const connection = await client.reserve();
  try {
    await connection`select pg_advisory_lock(${MIGRATION_LOCK_KEY.toString()}::bigint)`;
    try {
      await work();
    } finally {
      await connection`select pg_advisory_unlock(${MIGRATION_LOCK_KEY.toString()}::bigint)`;
    }
  } finally {
    connection.release();
  }
}

type Holder = { handle?: Promise<DbHandle> };
const holder = processState<Holder>("database", () => ({}));

/** The process's database, opened (and migrated) on first use. */
export async function getDatabase(): Promise<DbHandle> {
  if (!holder.handle) {
    const { DATABASE_URL } = env();
    holder.handle = openDatabase(DATABASE_URL).catch((error) => {
      holder.handle = undefined; // let the next request try again
      throw error;
    });
    holder.handle.then((h) => log.info("database ready", { kind: h.kind })).catch(() => {});
  }
  return holder.handle;
}

export async function getDb(): Promise<Db> {
  return (await getDatabase()).db;
}

/** Tests swap databases between files; the app never calls this. */
export async function setDatabaseForTests(handle: DbHandle | undefined) {
  holder.handle = handle ? Promise.resolve(handle) : undefined;
}

/** Codes (Node, postgres.js, PostgreSQL) that mean the store cannot be reached. */
const STORE_DOWN_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "57P01",
  "57P02",
  "57P03",
  "53300",
  "08006",
  "08001",
  "08003",
  "08004",
]);

/** True when an error means the store cannot be reached (as opposed to a bug or a constraint). */
export function isStoreUnavailable(error: unknown): boolean {
  return findCause(error, (link) => STORE_DOWN_CODES.has((link as { code?: string }).code ?? "")) !== undefined;
}
