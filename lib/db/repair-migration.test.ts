/**
 * Migration 0011 folds the rows that re-pairing made before it kept one site per address: each user's confirmed
 * rows of one URL become one site (the active one), and what was recorded under the others moves to it. Runs the
 * migration's data statements again over rows shaped as the old code left them, on both stores.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "./index";
import {
  ensureChangeSet,
  findOAuthClient,
  findSiteOrItsRepairForUser,
  insertConversation,
  insertOAuthClient,
  insertOAuthGrant,
  insertPairing,
  insertUser,
  listAllSiteRowsForUser,
  listChangeSets,
} from "./queries";
import { conversations, oauthGrants, sites } from "./schema";
import { STORES, useStore } from "./testing";

const migration = readFileSync(path.join(process.cwd(), "drizzle/0011_repair_history.sql"), "utf8");
/** Everything after the column itself: the fold of legacy rows. */
const foldStatements = migration
  .split("--> statement-breakpoint")
  .slice(1)
  .map((statement) => statement.trim());

describe.each(STORES)("migration 0011 on %s", (kind) => {
  useStore(kind);
  const t0 = new Date("2026-01-01T00:00:00Z");
  const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000);
  const me = randomUUID();
  const other = randomUUID();
  const shop = "https://shop.example";
  const ids = { first: randomUUID(), second: randomUUID(), current: randomUUID(), theirs: randomUUID() };

  /** A pairing row as the old code left it once confirmed: `revoked` for the earlier ones. */
  async function legacyRow(id: string, userId: string, minutes: number, status: "active" | "revoked") {
    await insertPairing({
      id,
      userId,
      url: shop,
      codeHmac: `h-${id}`,
      codeExpiresAt: at(minutes + 5),
      createdAt: at(minutes),
    });
    const db = await getDb();
    await db
      .update(sites)
      .set({
        status,
        confirmedAt: at(minutes + 1),
        repairsSiteId: null,
        credentials: status === "active" ? "v1.x" : null,
      })
      .where(sql`${sites.id} = ${id}`);
  }

  beforeAll(async () => {
    for (const id of [me, other])
      await insertUser({ id, email: `${id}@example.com`, name: null, passwordHash: "x", createdAt: t0 });
    await legacyRow(ids.first, me, 0, "revoked");
    await legacyRow(ids.second, me, 10, "revoked");
    await legacyRow(ids.current, me, 20, "active");
    await legacyRow(ids.theirs, other, 30, "active");
    for (const [n, siteId] of [ids.first, ids.second, ids.current, ids.theirs].entries()) {
      const userId = siteId === ids.theirs ? other : me;
      await insertConversation({ id: `c${n}`, userId, siteId, title: `chat ${n}`, now: at(n) });
      await ensureChangeSet({
        id: `s${n}`,
        userId,
        siteId,
        conversationId: `c${n}`,
        turnId: `t${n}`,
        target: "live",
        now: at(n),
      });
    }
    await insertOAuthClient({
      id: "client",
      name: "Agent",
      redirectUris: [],
      authMethod: "none",
      secretHash: null,
      now: t0,
    });
    await insertOAuthGrant({
      id: "g",
      userId: me,
      clientId: "client",
      siteIds: [ids.first, ids.current],
      access: "read",
      now: t0,
    });
    const db = await getDb();
    for (const statement of foldStatements) await db.execute(sql.raw(statement));
  });

  it("moves a user's earlier change sets and conversations to the site in use", async () => {
    const sets = await listChangeSets({ userId: me, siteId: ids.current });
    expect(sets.map((set) => set.id).sort()).toEqual(["s0", "s1", "s2"]);
    const db = await getDb();
    const rows = await db.select().from(conversations);
    expect(Object.fromEntries(rows.map((row) => [row.id, row.siteId]))).toEqual({
      c0: ids.current,
      c1: ids.current,
      c2: ids.current,
      c3: ids.theirs,
    });
  });

  it("points the folded rows at the site, hides them from the dashboard, and rewrites MCP grants", async () => {
    expect((await findSiteOrItsRepairForUser({ userId: me, siteId: ids.first }))?.id).toBe(ids.current);
    expect((await listAllSiteRowsForUser({ userId: me })).map((row) => row.id)).toEqual([ids.current]);
    const db = await getDb();
    const [grant] = await db.select().from(oauthGrants);
    expect(grant!.siteIds).toEqual([ids.current]);
    expect(await findOAuthClient({ id: "client" })).toBeDefined();
  });

  it("never touches another user's site of the same URL", async () => {
    expect(await listChangeSets({ userId: other, siteId: ids.theirs })).toHaveLength(1);
    expect((await listAllSiteRowsForUser({ userId: other })).map((row) => [row.id, row.status])).toEqual([
      [ids.theirs, "active"],
    ]);
  });
});
