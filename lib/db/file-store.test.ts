/**
 * `DATABASE_URL=file:<directory>` (README, "Try it end to end"): PGlite kept on disk, so a local try keeps its
 * account across restarts of the app, where the in-memory default forgets it. And the embedded store's memory:
 * 16 MB of shared buffers, and one full collection of its start-up garbage a second after it opened.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { afterAll, describe, expect, it, vi } from "vitest";
import { parseEnv } from "@/lib/env";
import { type DbHandle, openDatabase } from "./index";
import { users } from "./schema";

// Three PGlite starts with their migrations: seconds each, a minute or more on a busy two-core machine.
vi.setConfig({ testTimeout: 240_000 });

const dir = mkdtempSync(path.join(tmpdir(), "sw-file-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ana = {
  id: "u-ana",
  email: "ana@example.com",
  emailNormalized: "ana@example.com",
  passwordHash: "scrypt$x",
  createdAt: new Date(),
};

const sharedBuffers = async ({ db }: DbHandle) =>
  ((await db.execute(sql`show shared_buffers`)) as unknown as { rows: { shared_buffers: string }[] }).rows[0]
    ?.shared_buffers;

describe("a database on disk", () => {
  it("keeps an account when the app closes it and opens it again; memory does not", async () => {
    // As the README's `file:.data/sitewright` on a fresh clone: neither folder exists yet.
    const url = `file:${path.join(dir, "data", "db")}`;
    const first = await openDatabase(url);
    expect(first.kind).toBe("file");
    await first.db.insert(users).values(ana);
    await first.close();

    const second = await openDatabase(url);
    expect(await second.db.select().from(users).where(eq(users.id, ana.id))).toHaveLength(1);
    expect(await sharedBuffers(second)).toBe("16MB");
    await second.close();

    const memory = await openDatabase(undefined);
    expect(memory.kind).toBe("memory");
    expect(await memory.db.select().from(users)).toHaveLength(0);
    // The embedded store's PostgreSQL keeps 16 MB of shared buffers, not 128 (lib/db/index.ts: PGlite's memory
    // grows to hold them and never shrinks).
    expect(await sharedBuffers(memory)).toBe("16MB");
    await memory.close();
  });

  it("is a DATABASE_URL the environment accepts, as a relative directory too", () => {
    const devSecrets = () => ({ SESSION_SECRET: "s".repeat(32), ENCRYPTION_KEY: "0".repeat(64) });
    const parse = (url: string) => parseEnv({ DATABASE_URL: url }, { devSecrets });
    expect(parse("file:.data/sitewright").DATABASE_URL).toBe("file:.data/sitewright");
    expect(() => parse("mysql://x")).toThrow(/file:<directory>/);
  });
});

describe("the embedded store's start", () => {
  it("is followed by one full collection, a second after the store opened, and only one", () => {
    // In a process of its own, as the server is: Node's own collections are watched through perf_hooks, and only a
    // collection asked for in code is "forced" (V8 runs none of its own that way). Without it, PGlite's start-up
    // buffers (hundreds of MB) wait for a full collection a server under steady load may not run for long.
    const child = `
      import { constants, PerformanceObserver, performance } from "node:perf_hooks";
      const forced = [];
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) {
          if (entry.detail.flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) {
            forced.push({ major: entry.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR, at: entry.startTime });
          }
        }
      }).observe({ entryTypes: ["gc"] });
      const { openDatabase } = await import(${JSON.stringify(path.join(import.meta.dirname, "index.ts"))});
      const handle = await openDatabase(undefined);
      const opened = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 3000));
      await handle.close();
      console.log(JSON.stringify({ forced: forced.map((gc) => ({ major: gc.major, after: gc.at - opened })) }));
    `;
    const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", child], {
      cwd: path.join(import.meta.dirname, "../.."),
      encoding: "utf8",
      env: { ...process.env, LOG_LEVEL: "silent" },
    });
    const { forced } = JSON.parse(out.trim().split("\n").at(-1)!) as { forced: { major: boolean; after: number }[] };
    expect(forced).toHaveLength(1);
    expect(forced[0]!.major).toBe(true);
    // A second after the open (the timer's own delay; a busy machine runs it later, never sooner).
    expect(forced[0]!.after).toBeGreaterThanOrEqual(900);
  });
});
