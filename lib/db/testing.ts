/**
 * Real PostgreSQL for tests: each call makes its own database (migrated), so runs and files never see each
 * other's rows. `TEST_DATABASE_ADMIN_URL` points at the server (default: the local trust-auth PostgreSQL).
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll } from "vitest";
import { openDatabase, setDatabaseForTests, type DbHandle } from "./index";

export const adminUrl = () => process.env.TEST_DATABASE_ADMIN_URL || "postgres://postgres@127.0.0.1:5432/postgres";

export type TestDatabase = { handle: DbHandle; url: string; name: string; drop(): Promise<void> };

export async function createTestDatabase(): Promise<TestDatabase> {
  const { default: postgres } = await import("postgres");
  const name = `sw_test_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
  const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  await admin.end();
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  const handle = await openDatabase(url.toString());
  return {
    handle,
    url: url.toString(),
    name,
    async drop() {
      await handle.close().catch(() => {});
      const cleanup = postgres(adminUrl(), { max: 1, onnotice: () => {} });
      await cleanup.unsafe(`drop database if exists "${name}" with (force)`);
      await cleanup.end();
    },
  };
}

/** For a test file: a fresh PostgreSQL database as the app's database for the whole file. */
export function useTestDatabase(): { current: () => TestDatabase } {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
    await setDatabaseForTests(database.handle);
  });
  afterAll(async () => {
    await setDatabaseForTests(undefined);
    await database?.drop();
  });
  return {
    current: () => {
      if (!database) throw new Error("useTestDatabase(): database not ready yet");
      return database;
    },
  };
}

/** The two stores the app can run on; the data layer's suites run on both so they cannot drift. */
export const STORES = ["in memory (PGlite)", "PostgreSQL"] as const;
export type StoreKind = (typeof STORES)[number];

/** For a describe block: a fresh database of this kind as the app's database, removed afterwards. */
export function useStore(kind: StoreKind) {
  let cleanup: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    if (kind === "PostgreSQL") {
      const database = await createTestDatabase();
      cleanup = () => database.drop();
      await setDatabaseForTests(database.handle);
    } else {
      const handle = await openDatabase(undefined);
      cleanup = () => handle.close();
      await setDatabaseForTests(handle);
    }
  });
  afterAll(async () => {
    await setDatabaseForTests(undefined);
    await cleanup?.();
  });
}
