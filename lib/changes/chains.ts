/**
 * Several items on one target in one change set (API.md v1.3 "Durable writes"; docs/change-sets.md, "Several
 * changes to one item"). A later item is planned against the state the set's pending items leave (`pendingView`):
 * its diff is against that state, and it expects the version its predecessor will leave, named as
 * `pending:<predecessor item id>` (a chained expect; the plugin refuses it as stale if it ever reached the site).
 * When written, a target's chain goes in plan order: items written together are merged into one change that
 * expects the first one's version (so the plugin's check still refuses a person's newer edit); an item whose
 * predecessor was written earlier expects the version that write left. Undo reverts a chain as one change, from the
 * state before its first item, expecting the version its last write left.
 */
import type { ChangeItem, ItemChange } from "@/lib/db/schema";
import { AppError } from "@/lib/errors";
import { ITEMS_ROUTE, siteItemSchema } from "@/lib/sites/items";
import type { SiteClient } from "@/lib/sites/types";
import { reverseChange } from "./plan";

const CHAINED = "pending:";

/** The item a chained change rests on, or null for a change planned against the live site. */
export function chainedOn(change: Pick<ItemChange, "expect">): string | null {
  return change.expect?.startsWith(CHAINED) ? change.expect.slice(CHAINED.length) : null;
}

type Tip = Pick<ChangeItem, "id" | "ref" | "beforeState" | "change" | "title">;

/** The state a pending update leaves: what it was planned against, with its fields. */
const stateAfter = (tip: Tip) => ({ ...(tip.beforeState ?? {}), ...(tip.change.fields ?? {}) });

/**
 * The site as the set's pending items will leave it: a read of an item with a pending update answers the state that
 * update leaves, at the version `pending:<its id>`; everything else is read from the site as it is.
 */
export function pendingView(client: SiteClient, pending: Tip[]): SiteClient {
  const tips = new Map<string, Tip>();
  for (const item of pending) if (item.change.action === "update" && item.beforeState) tips.set(item.ref, item);
  if (tips.size === 0) return client;
  const overlay = (raw: unknown) => {
    const item = siteItemSchema.parse(raw);
    const tip = tips.get(item.ref);
    if (!tip || !item.exists) return raw;
    const state = stateAfter(tip);
    const title = typeof state.title === "string" ? state.title : item.title;
    return { ...item, title, state, version: `${CHAINED}${tip.id}` };
  };
  return {
    get: async <T>(route: string, query?: Record<string, string | number | boolean>) => {
      const response = await client.get<T>(route, query);
      if (route !== ITEMS_ROUTE) return response;
      const data = response.data as { items?: unknown[] };
      return { ...response, data: { ...data, items: (data.items ?? []).map(overlay) } as T };
    },
    post: (route, body) => client.post(route, body),
    put: (route, body) => client.put(route, body),
    delete: (route, query) => client.delete(route, query),
  };
}

/** One change sent to the site and the items it writes (several when a chain is merged). */
export type ChainedWrite = { change: ItemChange; items: ChangeItem[] };

const whyNotWritten: Record<string, string> = {
  pending: "still waits for approval",
  denied: "was denied",
  failed: "was not written",
  undone: "was undone",
};

/** A later item chosen without the earlier change to the same item it rests on: nothing is written. */
function brokenChain(item: ChangeItem, earlier: ChangeItem | undefined): AppError {
  const why = earlier ? (whyNotWritten[earlier.status] ?? "is not written") : "is not in this change set";
  return new AppError(
    "not_applicable",
    `“${item.title}”: this change was planned on top of an earlier change to the same item${earlier ? ` (“${earlier.summary}”)` : ""}, which ${why}. Approve them together, or ask again for the change on the current version.`,
    { details: { items: [{ id: item.id, restsOn: earlier?.id ?? null }] } },
  );
}

/** A later change that cannot be folded into its predecessor's write (only updates chain). */
function unmergeable(item: ChangeItem): AppError {
  return new AppError(
    "not_applicable",
    `“${item.title}”: this change cannot be written together with the earlier change to the same item; approve the earlier one first, then ask again.`,
    { details: { items: [{ id: item.id }] } },
  );
}

/**
 * The changes that write `items` (in plan order), given every item of their set: a chain's items written together
 * are merged into one change (later fields win: each was planned against the state the earlier ones leave); an
 * item whose predecessor is already written expects the version that write left. Throws `not_applicable` (nothing
 * written) for an item whose predecessor is neither written nor among `items`.
 */
export function chainWrites(items: ChangeItem[], setItems: ChangeItem[]): ChainedWrite[] {
  const byId = new Map(setItems.map((item) => [item.id, item]));
  const writeOf = new Map<string, ChainedWrite>();
  const writes: ChainedWrite[] = [];
  for (const item of [...items].sort((a, b) => a.seq - b.seq)) {
    const on = chainedOn(item.change);
    const earlier = on ? writeOf.get(on) : undefined;
    if (on && earlier) {
      if (earlier.change.action !== "update" || item.change.action !== "update") throw unmergeable(item);
      earlier.change = { ...earlier.change, fields: { ...earlier.change.fields, ...item.change.fields } };
      earlier.items.push(item);
      writeOf.set(item.id, earlier);
      continue;
    }
    const predecessor = on ? byId.get(on) : undefined;
    if (on && (predecessor?.status !== "applied" || !predecessor.versionAfter)) throw brokenChain(item, predecessor);
    const write = { change: on ? { ...item.change, expect: predecessor!.versionAfter } : item.change, items: [item] };
    writes.push(write);
    writeOf.set(item.id, write);
  }
  return writes;
}

/**
 * The item `item` follows on its target among `earlier` (chosen items before it, in order): the one it was chained
 * on, or the last written one whose write left exactly the version `item` was planned against (nobody edited the
 * item between the two writes).
 */
function follows(item: ChangeItem, earlier: ChangeItem[]): string | undefined {
  const on = chainedOn(item.change);
  if (on) return on;
  const last = earlier.findLast((e) => e.ref === item.ref);
  return last?.versionAfter && last.versionAfter === item.versionRead ? last.id : undefined;
}

/** What undoing a group does: delete what it created, restore what it trashed, else put the fields back. */
const groupAction = (group: ChangeItem[]) =>
  group[0]!.action === "create" ? "create" : group.some((i) => i.action === "trash") ? "trash" : "update";

/**
 * The reverse changes that undo `items` (applied), newest write first. A target's consecutive chosen items (a chain,
 * or writes with nobody's edit between them) are undone as one change, back to the state before the first of them,
 * expecting the version the last one's write left: no intermediate version is ever expected (a floating draft's
 * date moves on every save). Throws `not_applicable` when an item is chosen without a later written change
 * chained on it.
 */
export function chainUndos(items: ChangeItem[], setItems: ChangeItem[]): ChainedWrite[] {
  const chosen = new Set(items.map((item) => item.id));
  for (const later of setItems) {
    const on = chainedOn(later.change);
    if (on && chosen.has(on) && !chosen.has(later.id) && later.status === "applied")
      throw new AppError(
        "not_applicable",
        `“${later.title}”: a later change to the same item (“${later.summary}”) rests on this one; undo them together.`,
        { details: { items: [{ id: on, heldBy: later.id }] } },
      );
  }
  const groups = new Map<string, ChangeItem[]>();
  const heads: ChangeItem[][] = [];
  const ordered = [...items].sort((a, b) => a.seq - b.seq);
  for (const [index, item] of ordered.entries()) {
    const on = follows(item, ordered.slice(0, index));
    const group = on ? groups.get(on) : undefined;
    if (group) group.push(item);
    else heads.push([item]);
    groups.set(item.id, group ?? heads.at(-1)!);
  }
  const writtenAt = (group: ChangeItem[]) => group.at(-1)!.appliedAt?.getTime() ?? 0;
  return heads
    .sort((a, b) => writtenAt(b) - writtenAt(a) || b.at(-1)!.seq - a.at(-1)!.seq)
    .map((group) => {
      const [first, last] = [group[0]!, group.at(-1)!];
      return {
        change: reverseChange({
          ref: last.ref,
          action: groupAction(group),
          beforeState: first.beforeState,
          afterState: last.afterState,
          versionAfter: last.versionAfter,
        }),
        items: group,
      };
    });
}
