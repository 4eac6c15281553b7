/**
 * A change set's status, derived from its items in one SQL statement on both stores (PGlite in memory and
 * PostgreSQL): the status for each mix of item states, and `partially_applied` meaning the same for a live set and a
 * rehearsal (some items on the live site, some not; docs/change-sets.md, "Status").
 */
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { ChangeItemStatus, ChangeSetStatus, ChangeTarget } from "../schema";
import { STORES, useStore } from "../testing";
import {
  claimRehearsalsForApply,
  discardRehearsalSet,
  ensureChangeSet,
  finishRehearsalApply,
  insertChangeItems,
  insertUser,
  refreshChangeSetStatus,
  transitionChangeItems,
  type ChangeItemInsert,
} from "../queries";

/** An item's state: its status, and (for a rehearsal's item) whether an Apply made it live. */
type ItemState = ChangeItemStatus | "live";

/** How each state is reached from an inserted item, as the app reaches it. */
const PATHS: Record<ItemState, { insert: "pending" | "applied"; moveTo?: ChangeItemStatus }> = {
  pending: { insert: "pending" },
  writing: { insert: "pending", moveTo: "writing" },
  denied: { insert: "pending", moveTo: "denied" },
  failed: { insert: "pending", moveTo: "failed" },
  applied: { insert: "applied" },
  undoing: { insert: "applied", moveTo: "undoing" },
  undone: { insert: "applied", moveTo: "undone" },
  live: { insert: "applied" },
};

const LIVE_SETS: Array<[ItemState[], ChangeSetStatus]> = [
  [[], "discarded"],
  [["pending"], "pending"],
  [["writing"], "pending"],
  [["applied", "pending"], "pending"],
  [["applied", "writing"], "pending"],
  [["applied"], "applied"],
  [["applied", "applied"], "applied"],
  [["undoing"], "applied"],
  [["applied", "denied"], "partially_applied"],
  [["applied", "failed"], "partially_applied"],
  [["undoing", "failed"], "partially_applied"],
  [["applied", "undone"], "partially_undone"],
  [["undoing", "undone"], "partially_undone"],
  [["undone"], "undone"],
  [["undone", "denied"], "undone"],
  [["denied"], "discarded"],
  [["denied", "failed"], "discarded"],
];

/** A rehearsal's items are written in its sandbox (`applied`); an Apply makes some of them live. */
const REHEARSALS: Array<[ItemState[], ChangeSetStatus]> = [
  [[], "pending"],
  [["applied"], "pending"],
  [["applied", "applied"], "pending"],
  [["live", "applied"], "partially_applied"],
  [["live", "failed"], "partially_applied"],
  [["live", "live"], "applied"],
];

describe.each(STORES)("change set status on %s", (kind) => {
  useStore(kind);
  const userId = randomUUID();
  const t0 = new Date("2026-03-01T10:00:00Z");
  const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);

  beforeAll(async () => {
    await insertUser({ id: userId, email: `${userId}@example.com`, name: null, passwordHash: "x", createdAt: t0 });
  });

  const item = (changeSetId: string, index: number, status: "pending" | "applied"): ChangeItemInsert => ({
    id: randomUUID(),
    changeSetId,
    kind: "page",
    ref: `post:${index + 10}`,
    action: "update",
    title: `Page ${index}`,
    summary: "Changed the title",
    before: { title: "a" },
    after: { title: "b" },
    visible: true,
    change: { ref: `post:${index + 10}`, expect: "v1", action: "update", fields: { title: "b" } },
    beforeState: { title: "a" },
    versionRead: "v1",
    status,
    now: t0,
  });

  /** A set whose items are in `states`, reached through the same queries the app uses. */
  async function setWith(target: ChangeTarget, states: ItemState[]) {
    const set = await ensureChangeSet({
      id: randomUUID(),
      userId,
      siteId: "site-1",
      conversationId: randomUUID(),
      turnId: "turn-1",
      target,
      ...(target === "sandbox" ? { sandboxId: "sandbox-1" } : {}),
      now: t0,
    });
    const items = await insertChangeItems(states.map((state, index) => item(set.id, index, PATHS[state].insert)));
    for (const [index, state] of states.entries()) {
      const moveTo = PATHS[state].moveTo;
      if (moveTo)
        await transitionChangeItems({ ids: [items[index]!.id], from: PATHS[state].insert, to: moveTo, now: t0 });
    }
    const live = items.filter((_, index) => states[index] === "live").map((i) => i.id);
    if (live.length > 0) {
      expect(await claimRehearsalsForApply({ ids: [set.id], userId, now: at(1) })).toBeDefined();
      await finishRehearsalApply({ itemIds: live, liveChangeSetId: randomUUID(), sets: [set.id], now: at(1) });
    }
    return set;
  }

  it.each(LIVE_SETS)("a live set with items %j is %s", async (states, expected) => {
    const set = await setWith("live", states);
    expect((await refreshChangeSetStatus({ id: set.id, now: at(2) }))?.status).toBe(expected);
  });

  it.each(REHEARSALS)(
    "a rehearsal with items %j is %s, after Apply and when derived again",
    async (states, expected) => {
      const set = await setWith("sandbox", states);
      // finishRehearsalApply stored the status when some items went live; deriving it again must agree.
      expect((await refreshChangeSetStatus({ id: set.id, now: at(2) }))?.status).toBe(expected);
    },
  );

  it("means the same by partially_applied for a live set and a rehearsal: some items live, some not", async () => {
    const live = await setWith("live", ["applied", "failed"]);
    const rehearsal = await setWith("sandbox", ["live", "failed"]);
    const [a, b] = await Promise.all([
      refreshChangeSetStatus({ id: live.id, now: at(2) }),
      refreshChangeSetStatus({ id: rehearsal.id, now: at(2) }),
    ]);
    expect([a?.status, b?.status]).toEqual(["partially_applied", "partially_applied"]);
  });

  it("keeps a rehearsal claimed by an Apply as applying while it is derived again", async () => {
    const set = await setWith("sandbox", ["applied", "applied"]);
    expect((await refreshChangeSetStatus({ id: set.id, now: at(1) }))?.status).toBe("pending");
    expect(await claimRehearsalsForApply({ ids: [set.id], userId, now: at(2) })).toBeDefined();
    expect((await refreshChangeSetStatus({ id: set.id, now: at(2) }))?.status).toBe("applying");
  });

  it("keeps a discarded rehearsal discarded when it is derived again", async () => {
    const set = await setWith("sandbox", ["live", "applied"]);
    expect(await discardRehearsalSet({ id: set.id, userId, now: at(2) })).toMatchObject({ status: "discarded" });
    expect((await refreshChangeSetStatus({ id: set.id, now: at(3) }))?.status).toBe("discarded");
  });

  it("records when a set was first applied and when it was undone", async () => {
    const set = await setWith("live", ["applied", "applied"]);
    const applied = await refreshChangeSetStatus({ id: set.id, now: at(2) });
    expect(applied?.appliedAt?.toISOString()).toBe(at(2).toISOString());
    expect(applied?.undoneAt).toBeNull();
    const again = await refreshChangeSetStatus({ id: set.id, now: at(3) });
    expect(again?.appliedAt?.toISOString()).toBe(at(2).toISOString());
    expect(again?.updatedAt.toISOString()).toBe(at(3).toISOString());
  });
});
