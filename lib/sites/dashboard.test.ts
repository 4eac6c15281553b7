/**
 * The dashboard as a site owner reads it: one entry per address, abandoned attempts folded away, disconnected
 * sites kept while they have conversations, statuses in words, last activity from the site or the chat.
 */
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import {
  activateSite,
  insertConversation,
  insertPairing,
  insertUser,
  recordFailedRedeem,
  revokeSite,
} from "@/lib/db/queries";
import { getDb } from "@/lib/db";
import { sites as siteRows } from "@/lib/db/schema";
import { useTestDatabase } from "@/lib/db/testing";
import { loadDashboard } from "./dashboard";

useTestDatabase();

const userId = randomUUID();
const t0 = new Date(Date.now() - 60 * 60_000);
const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000);
const pair = (url: string, minutes: number, id = randomUUID()) =>
  insertPairing({ id, userId, url, codeHmac: `h-${id}`, codeExpiresAt: at(minutes + 5), createdAt: at(minutes) });
const activate = (id: string, minutes: number) =>
  activateSite({
    id,
    now: at(minutes),
    name: "Shop",
    pageBuilder: null,
    capabilities: [],
    siteInfo: {},
    preflight: {},
  });

beforeAll(async () => {
  await insertUser({ id: userId, email: `${userId}@example.com`, name: null, passwordHash: "x", createdAt: t0 });
  // shop: two superseded codes, then one that was locked, then the pairing that became active.
  await pair("https://shop.example", 0);
  await pair("https://shop.example", 1);
  await pair("https://shop.example", 2);
  for (let i = 0; i < 5; i++) await recordFailedRedeem({ url: "https://shop.example", now: at(2), maxAttempts: 5 });
  const active = await pair("https://shop.example", 3);
  await markRedeemed(active.id);
  await activate(active.id, 4);
  await insertConversation({ id: randomUUID(), userId, siteId: active.id, title: "t", now: at(20) });
  // blog: connected once, chatted about, then disconnected.
  const blog = await pair("https://blog.example", 5);
  await markRedeemed(blog.id);
  await activate(blog.id, 6);
  await insertConversation({ id: randomUUID(), userId, siteId: blog.id, title: "t", now: at(7) });
  await revokeSite({ id: blog.id, now: at(8) });
  // old: disconnected without any conversation: it leaves the dashboard.
  const old = await pair("https://old.example", 9);
  await revokeSite({ id: old.id, now: at(10) });
});

/** Redeem needs a plugin; the row's state after a redeem is all the dashboard reads. */
async function markRedeemed(id: string) {
  await (await getDb()).update(siteRows).set({ status: "redeemed" }).where(eq(siteRows.id, id));
}

describe("the dashboard", () => {
  it("shows one entry per address, the connected pairing, with words and its last activity", async () => {
    const { sites } = await loadDashboard({ userId });
    expect(sites).toHaveLength(1);
    expect(sites[0]).toMatchObject({
      url: "https://shop.example",
      status: "active",
      statusText: "Connected",
      lastActivityAt: at(20).toISOString(),
    });
  });

  it("folds the expired and locked attempts away from the site in use", async () => {
    const { abandoned } = await loadDashboard({ userId });
    expect(abandoned.map((site) => site.statusText).sort()).toEqual([
      "Code expired",
      "Code expired",
      "Locked after five wrong codes",
    ]);
  });

  it("keeps a disconnected site while it has conversations, and drops one without", async () => {
    const { disconnected, sites } = await loadDashboard({ userId });
    expect(disconnected.map((site) => [site.url, site.statusText])).toEqual([["https://blog.example", "Disconnected"]]);
    expect([...sites, ...disconnected].some((site) => site.url === "https://old.example")).toBe(false);
  });
});

describe("the dashboard while a site is being paired again", () => {
  it("shows the site in use, not the pending re-pairing that would hide it", async () => {
    const owner = randomUUID();
    await insertUser({ id: owner, email: `${owner}@example.com`, name: null, passwordHash: "x", createdAt: t0 });
    const first = randomUUID();
    await insertPairing({
      id: first,
      userId: owner,
      url: "https://cafe.example",
      codeHmac: `h-${first}`,
      codeExpiresAt: at(5),
      createdAt: at(0),
    });
    await markRedeemed(first);
    await activate(first, 1);
    const again = randomUUID();
    const repairing = await insertPairing({
      id: again,
      userId: owner,
      url: "https://cafe.example",
      codeHmac: `h-${again}`,
      codeExpiresAt: new Date(Date.now() + 60_000),
      createdAt: at(30),
    });
    expect(repairing.repairsSiteId).toBe(first);
    const { sites } = await loadDashboard({ userId: owner });
    expect(sites.map((site) => [site.id, site.statusText])).toEqual([[first, "Connected"]]);
  });
});
