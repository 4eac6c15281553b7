/**
 * Migration 0015 replaces a sandbox's `host_port` with the endpoint, node and driver its driver answers. Rows from
 * before it ran on the docker driver at their loopback port: runs the migration's fill statements again over rows
 * shaped as the old code left them (with the old column put back for the test), on both stores.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "./index";
import { findSandboxById } from "./queries";
import { STORES, useStore } from "./testing";

const migration = readFileSync(path.join(process.cwd(), "drizzle/0015_sandbox_endpoint.sql"), "utf8");
/** The statements that fill the new columns from the old one. */
const fillStatements = migration
  .split("--> statement-breakpoint")
  .map((statement) => statement.trim())
  .filter((statement) => /^(--[^\n]*\n)*UPDATE /.test(statement));

describe.each(STORES)("migration 0015 on %s", (kind) => {
  useStore(kind);

  it("gives a sandbox from before drivers the docker driver and its loopback endpoint, and leaves others alone", async () => {
    expect(fillStatements.length).toBe(2);
    const db = await getDb();
    await db.execute(sql.raw(`ALTER TABLE "sandboxes" ADD COLUMN "host_port" integer`));
    const insert = (id: string, containerId: string | null, hostPort: number | null) =>
      db.execute(sql`insert into sandboxes (id, status, image_tag, container_id, host_port, created_at, last_used_at,
        expires_at) values (${id}, 'ready', 'img', ${containerId}, ${hostPort}, now(), now(), now())`);
    await insert("running", "abc123", 41234);
    await insert("starting", "def456", null);
    await insert("reserved", null, null);
    for (const statement of fillStatements) await db.execute(sql.raw(statement));
    await db.execute(sql.raw(`ALTER TABLE "sandboxes" DROP COLUMN "host_port"`));

    expect(await findSandboxById({ id: "running" })).toMatchObject({
      endpoint: "http://127.0.0.1:41234",
      driver: "docker",
      node: null,
    });
    expect(await findSandboxById({ id: "starting" })).toMatchObject({ endpoint: null, driver: "docker" });
    expect(await findSandboxById({ id: "reserved" })).toMatchObject({ endpoint: null, driver: null });
  });
});
