/**
 * Change-set queries against both stores the app can use (PGlite in memory and PostgreSQL): one set per turn and
 * target, items in order, status derived from the items, undo claims atomic, only the owner finds a set.
 */
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { STORES, useStore } from "../testing";
import {
  ensureChangeSet,
  findChangeItem,
  findChangeSet,
  findChangeSetSummary,
  findChangeSetForTurn,
  insertChangeAudit,
  insertChangeItems,
  insertUser,
  listChangeAudit,
  listChangeItemDiffs,
  listChangeSetSummaries,
  listChangeSets,
  listItemsForToolCall,
  listPendingItemsForToolCall,
  markChangeItemApplied,
  refreshChangeSetStatus,
  transitionChangeItems,
  type ChangeItemInsert,
} from "../queries";

describe.each(STORES)("change-set queries on %s", (kind) => {
  useStore(kind);
  const userId = randomUUID();
  const t0 = new Date("2026-03-01T10:00:00Z");
  const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);

  beforeAll(async () => {
    await insertUser({ id: userId, email: `${userId}@example.com`, name: null, passwordHash: "x", createdAt: t0 });
  });

  const newSet = (turnId: string, now = t0, conversationId = "conv-1") =>
    ensureChangeSet({ id: randomUUID(), userId, siteId: "site-1", conversationId, turnId, target: "live", now });

  const item = (changeSetId: string, overrides: Partial<ChangeItemInsert> = {}): ChangeItemInsert => ({
    id: randomUUID(),
    changeSetId,
    toolCallId: "call-1",
    kind: "page",
    ref: "post:12",
    action: "update",
    title: "About us",
    summary: "Changed the title",
    before: { title: "About us" },
    after: { title: "About our bakery" },
    visible: true,
    change: { ref: "post:12", expect: "v1", action: "update", fields: { title: "About our bakery" } },
    beforeState: { title: "About us", status: "publish" },
    versionRead: "v1",
    status: "pending",
    now: t0,
    ...overrides,
  });

  it("makes one change set per turn and target, and returns the same one when asked again", async () => {
    const first = await newSet("turn-a");
    const again = await newSet("turn-a", at(5));
    expect(again.id).toBe(first.id);
    expect(first).toMatchObject({ status: "pending", target: "live", sandboxId: null });
    expect((await findChangeSetForTurn({ conversationId: "conv-1", turnId: "turn-a", target: "live" }))?.id).toBe(
      first.id,
    );
    expect(
      await findChangeSetForTurn({ conversationId: "conv-1", turnId: "turn-a", target: "sandbox" }),
    ).toBeUndefined();
  });

  it("keeps items in the order they were planned, across calls", async () => {
    const set = await newSet("turn-order");
    await insertChangeItems([item(set.id, { title: "one" }), item(set.id, { title: "two" })]);
    await insertChangeItems([item(set.id, { title: "three", toolCallId: "call-2" })]);
    const found = await findChangeSet({ id: set.id, userId, siteId: "site-1" });
    expect(found?.items.map((i) => [i.seq, i.title])).toEqual([
      [1, "one"],
      [2, "two"],
      [3, "three"],
    ]);
    expect(
      (await listPendingItemsForToolCall({ conversationId: "conv-1", turnId: "turn-order", toolCallId: "call-2" })).map(
        (i) => i.title,
      ),
    ).toEqual(["three"]);
  });

  it("tells a tool call's items apart by their turn when a provider reuses the call's id in the next turn", async () => {
    const earlier = await newSet("turn-reused-1");
    const later = await newSet("turn-reused-2", at(1));
    await insertChangeItems([item(earlier.id, { title: "the upload", toolCallId: "call_0", kind: "media" })]);
    await insertChangeItems([item(later.id, { title: "the footer", toolCallId: "call_0", kind: "template_part" })]);
    const of = (turnId: string) => ({ conversationId: "conv-1", turnId, toolCallId: "call_0" });
    expect((await listItemsForToolCall(of("turn-reused-2"))).map((i) => i.title)).toEqual(["the footer"]);
    expect((await listPendingItemsForToolCall(of("turn-reused-2"))).map((i) => i.title)).toEqual(["the footer"]);
    expect((await listItemsForToolCall(of("turn-reused-1"))).map((i) => i.title)).toEqual(["the upload"]);
  });

  it("derives the set's status from its items: pending, applied, partially undone, undone, discarded", async () => {
    const set = await newSet("turn-status");
    const [a, b] = await insertChangeItems([item(set.id), item(set.id, { ref: "option:blogname", kind: "setting" })]);
    expect((await refreshChangeSetStatus({ id: set.id, now: at(1) }))?.status).toBe("pending");
    await markChangeItemApplied({
      id: a!.id,
      ref: "post:12",
      after: { title: "x" },
      afterState: { title: "x" },
      versionAfter: "v2",
      revisionId: 40,
      now: at(2),
    });
    await markChangeItemApplied({
      id: b!.id,
      ref: "option:blogname",
      after: { value: "y" },
      afterState: { value: "y" },
      versionAfter: "w2",
      now: at(2),
    });
    const applied = await refreshChangeSetStatus({ id: set.id, now: at(2) });
    expect(applied).toMatchObject({ status: "applied" });
    expect(applied?.appliedAt?.toISOString()).toBe(at(2).toISOString());
    expect(await transitionChangeItems({ ids: [a!.id], from: "applied", to: "undone", now: at(3) })).toEqual([a!.id]);
    expect((await refreshChangeSetStatus({ id: set.id, now: at(3) }))?.status).toBe("partially_undone");
    await transitionChangeItems({ ids: [b!.id], from: "applied", to: "undone", now: at(4) });
    const undone = await refreshChangeSetStatus({ id: set.id, now: at(4) });
    expect(undone?.status).toBe("undone");
    expect(undone?.undoneAt?.toISOString()).toBe(at(4).toISOString());

    const denied = await newSet("turn-denied");
    const [c] = await insertChangeItems([item(denied.id)]);
    await transitionChangeItems({ ids: [c!.id], from: "pending", to: "denied", now: at(1) });
    expect((await refreshChangeSetStatus({ id: denied.id, now: at(1) }))?.status).toBe("discarded");
  });

  it("lets only one of two concurrent undo claims take an item", async () => {
    const set = await newSet("turn-claim");
    const [a] = await insertChangeItems([item(set.id, { status: "applied" })]);
    const claims = await Promise.all(
      Array.from({ length: 5 }, () =>
        transitionChangeItems({ ids: [a!.id], from: "applied", to: "undoing", now: at(1) }),
      ),
    );
    expect(claims.filter((ids) => ids.length === 1)).toHaveLength(1);
  });

  it("finds a set only for its owner and site, and lists a site's sets newest first", async () => {
    const older = await newSet("turn-old", at(-100), "conv-2");
    const newer = await newSet("turn-new", at(100), "conv-2");
    expect(await findChangeSet({ id: newer.id, userId: "someone-else", siteId: "site-1" })).toBeUndefined();
    expect(await findChangeSet({ id: newer.id, userId, siteId: "site-2" })).toBeUndefined();
    const ids = (await listChangeSets({ userId, siteId: "site-1" })).map((s) => s.id);
    expect(ids.indexOf(newer.id)).toBeLessThan(ids.indexOf(older.id));
    expect(await listChangeSets({ userId: "someone-else", siteId: "site-1" })).toEqual([]);
  });

  it("records approvals and undos in the audit with who, when and the outcome", async () => {
    const set = await newSet("turn-audit");
    await insertChangeAudit({
      id: randomUUID(),
      changeSetId: set.id,
      siteId: "site-1",
      userId,
      action: "approve",
      itemIds: ["i1"],
      outcome: "ok",
      at: at(1),
    });
    await insertChangeAudit({
      id: randomUUID(),
      changeSetId: set.id,
      siteId: "site-1",
      userId,
      action: "undo",
      itemIds: ["i1"],
      outcome: "drifted",
      detail: "About us changed on the site",
      at: at(2),
    });
    expect((await listChangeAudit({ changeSetId: set.id })).map((r) => [r.action, r.outcome, r.userId])).toEqual([
      ["approve", "ok", userId],
      ["undo", "drifted", userId],
    ]);
  });

  it("summarises sets in SQL: item count, distinct titles in order, a keyset page after a position", async () => {
    const site = "site-summaries";
    const sets: Awaited<ReturnType<typeof ensureChangeSet>>[] = [];
    for (const [turn, seconds] of [
      ["s-1", 10],
      ["s-2", 20],
      ["s-3", 20],
    ] as const) {
      sets.push(
        await ensureChangeSet({
          id: randomUUID(),
          userId,
          siteId: site,
          conversationId: "conv-s",
          turnId: turn,
          target: "live",
          now: at(seconds),
        }),
      );
    }
    const titles = ["Home", "Prices", "Home", "Contact", ...Array.from({ length: 12 }, (_, i) => `Page ${i}`)];
    await insertChangeItems(titles.map((title) => item(sets[0]!.id, { title, status: "applied" })));
    const page = await listChangeSetSummaries({ userId, siteId: site, limit: 2, maxTitles: 10, maxTitleLength: 5 });
    // Newest first; the two made at the same moment by id, descending.
    const sameMoment = [sets[1]!.id, sets[2]!.id].sort().reverse();
    expect(page.map((s) => s.id)).toEqual(sameMoment);
    expect(page[0]).toMatchObject({ itemCount: 0, titles: [] });
    const rest = await listChangeSetSummaries({
      userId,
      siteId: site,
      limit: 10,
      before: { createdAt: page[1]!.createdAtKey, id: page[1]!.id },
      maxTitles: 10,
      maxTitleLength: 5,
    });
    expect(rest.map((s) => s.id)).toEqual([sets[0]!.id]);
    expect(rest[0]!.itemCount).toBe(titles.length);
    expect(rest[0]!.titles).toEqual(["Home", "Price", "Conta", "Page "]);
    expect(
      // A site's list holds every member's sets (docs/teams.md); another site's holds none of these.
      await listChangeSetSummaries({
        userId,
        siteId: "another-site",
        limit: 10,
        maxTitles: 10,
        maxTitleLength: 5,
      }),
    ).toEqual([]);
    expect((await findChangeSetSummary({ id: sets[0]!.id, userId, siteId: site }))?.itemCount).toBe(titles.length);
    expect(await findChangeSetSummary({ id: sets[0]!.id, userId, siteId: "site-1" })).toBeUndefined();
  });

  it("pages a set's items in order and trims a big before/after in SQL, keeping every field", async () => {
    const set = await newSet("turn-diffs", t0, "conv-diffs");
    const big = "x".repeat(5000);
    const rows = await insertChangeItems([
      item(set.id, { title: "Small" }),
      item(set.id, { title: "Big", before: { title: "Old", content: big }, after: big, status: "applied" }),
      item(set.id, { title: "Third", before: null, after: { items: Array.from({ length: 500 }, (_, i) => ({ i })) } }),
    ]);
    const first = await listChangeItemDiffs({ changeSetId: set.id, limit: 2, cap: 1000 });
    expect(first.map((r) => r.title)).toEqual(["Small", "Big"]);
    // The version each change expects comes along: a chained one (`pending:<id>`) names the item it rests on.
    expect(first[0]).toMatchObject({ before: { title: "About us" }, beforeCut: false, afterCut: false, expect: "v1" });
    expect(first[1]!.before).toEqual({ title: "Old", content: "x".repeat(1000) });
    expect(first[1]!.after).toBe("x".repeat(1000));
    expect(first[1]).toMatchObject({ beforeCut: true, afterCut: true });
    const second = await listChangeItemDiffs({ changeSetId: set.id, afterSeq: first[1]!.seq, limit: 2, cap: 1000 });
    expect(second.map((r) => r.title)).toEqual(["Third"]);
    expect(second[0]).toMatchObject({ before: null, beforeCut: false, afterCut: true });
    expect((second[0]!.after as { items: string }).items).toHaveLength(1000);
    expect((await findChangeItem({ changeSetId: set.id, id: rows[1]!.id }))?.before).toEqual({
      title: "Old",
      content: big,
    });
    expect(await findChangeItem({ changeSetId: randomUUID(), id: rows[1]!.id })).toBeUndefined();
  });
});
