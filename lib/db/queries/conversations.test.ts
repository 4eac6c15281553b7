/**
 * Conversations follow the site's address across pairings, on both stores: a disconnected and re-paired site
 * shows its earlier conversations, and never another site's or another user's.
 */
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { STORES, useStore } from "../testing";
import {
  ensureConversation,
  findConversationForSiteUrl,
  insertConversation,
  insertPairing,
  insertUser,
  lastConversationActivityByUrl,
  listAllSiteRowsForUser,
  listConversationsForSiteUrl,
  revokeSite,
} from "../queries";

describe.each(STORES)("conversation queries on %s", (kind) => {
  useStore(kind);
  const me = randomUUID();
  const other = randomUUID();
  const t0 = new Date("2026-01-01T00:00:00Z");
  const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000);
  const shop = "https://shop.example";
  const ids = { oldShop: randomUUID(), newShop: randomUUID(), blog: randomUUID(), othersShop: randomUUID() };

  const pair = (id: string, userId: string, url: string, minutes: number) =>
    insertPairing({ id, userId, url, codeHmac: `h-${id}`, codeExpiresAt: at(minutes + 5), createdAt: at(minutes) });

  beforeAll(async () => {
    for (const id of [me, other])
      await insertUser({ id, email: `${id}@example.com`, name: null, passwordHash: "x", createdAt: t0 });
    await pair(ids.oldShop, me, shop, 0);
    await insertConversation({ id: "c-old", userId: me, siteId: ids.oldShop, title: "Old shop chat", now: at(1) });
    await revokeSite({ id: ids.oldShop, now: at(2) });
    await pair(ids.newShop, me, shop, 3);
    await insertConversation({ id: "c-new", userId: me, siteId: ids.newShop, title: "New shop chat", now: at(4) });
    await pair(ids.blog, me, "https://blog.example", 5);
    await insertConversation({ id: "c-blog", userId: me, siteId: ids.blog, title: "Blog chat", now: at(6) });
    await pair(ids.othersShop, other, shop, 7);
    await insertConversation({ id: "c-other", userId: other, siteId: ids.othersShop, title: "Theirs", now: at(8) });
  });

  it("lists a re-paired site's earlier conversations with its new ones, newest first", async () => {
    const listed = await listConversationsForSiteUrl({ userId: me, url: shop });
    expect(listed.map((c) => c.id)).toEqual(["c-new", "c-old"]);
  });

  it("makes an MCP connection's rehearsal conversation once and keeps it out of the chat's list and activity", async () => {
    const id = `mcp:grant-1:${ids.newShop}`;
    const made = { id, userId: me, siteId: ids.newShop, title: "Claude (MCP)", now: at(9) };
    await Promise.all([ensureConversation(made), ensureConversation(made)]);
    await ensureConversation({ ...made, title: "Renamed", now: at(10) });
    expect(await findConversationForSiteUrl({ id, userId: me, url: shop })).toMatchObject({ title: "Claude (MCP)" });
    const listed = await listConversationsForSiteUrl({ userId: me, url: shop });
    expect(listed.map((c) => c.id)).toEqual(["c-new", "c-old"]);
  });

  it("finds a conversation of an earlier pairing, but not another site's or another user's", async () => {
    expect(await findConversationForSiteUrl({ id: "c-old", userId: me, url: shop })).toMatchObject({ id: "c-old" });
    expect(await findConversationForSiteUrl({ id: "c-blog", userId: me, url: shop })).toBeUndefined();
    expect(await findConversationForSiteUrl({ id: "c-other", userId: me, url: shop })).toBeUndefined();
    expect(await findConversationForSiteUrl({ id: "c-old", userId: other, url: shop })).toBeUndefined();
  });

  it("gives each address its last chat activity and keeps revoked rows for the dashboard", async () => {
    const activity = await lastConversationActivityByUrl({ userId: me });
    expect(activity.get(shop)?.toISOString()).toBe(at(4).toISOString());
    expect(activity.get("https://blog.example")?.toISOString()).toBe(at(6).toISOString());
    const rows = await listAllSiteRowsForUser({ userId: me });
    expect(rows.map((r) => [r.id, r.status])).toContainEqual([ids.oldShop, "revoked"]);
  });
});
