/**
 * Every instance migrates when it starts (lib/boot.ts): a Deployment's replicas start together on an empty
 * database, so they must take turns (docs/kubernetes.md, "Migrations").
 */
import { randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase, type DbHandle } from "./index";
import { adminUrl } from "./testing";

const name = `sw_test_migrate_${randomBytes(4).toString("hex")}`;
const handles: DbHandle[] = [];

afterAll(async () => {
  await Promise.all(handles.map((handle) => handle.close().catch(() => {})));
  const { default: postgres } = await import("postgres");
  const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists "${name}" with (force)`);
  await admin.end();
});

describe("migrations at start", () => {
  it("apply once when four instances start at the same moment on an empty database", async () => {
    const { default: postgres } = await import("postgres");
    const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database "${name}"`);
    await admin.end();
    const url = new URL(adminUrl());
    url.pathname = `/${name}`;

    const results = await Promise.allSettled([1, 2, 3, 4].map(() => openDatabase(url.toString())));
    for (const result of results) if (result.status === "fulfilled") handles.push(result.value);

    expect(results.map((result) => (result.status === "rejected" ? String(result.reason) : "ok"))).toEqual([
      "ok",
      "ok",
      "ok",
      "ok",
    ]);
    const check = postgres(url.toString(), { max: 1, onnotice: () => {} });
    const rows = await check<{ count: number }[]>`select count(*)::int as count from drizzle.__drizzle_migrations`;
    await check.end();
    const journal = readdirSync(path.join(process.cwd(), "drizzle")).filter((file) => file.endsWith(".sql"));
    expect(rows[0]?.count).toBe(journal.length);
  });
});
