/**
 * Change sets as the service keeps them: every agent write lands in its turn's set (planned items waiting for the
 * owner's click, or written items), and the wire format the contract gives (`changeSet`, docs/change-sets.md).
 */
import { randomUUID } from "node:crypto";
import { now } from "@/lib/clock";
import {
  ensureChangeSet,
  findChangeItem,
  findChangeSet,
  findChangeSetSummary,
  getChangeSetItems,
  insertChangeAudit,
  insertChangeItems,
  listChangeItemDiffs,
  listChangeSetSummaries,
  listItemsForToolCall,
  listPendingItemsForToolCall,
  listPendingItemsOfTurn,
  type ToolCallOfTurn,
  refreshChangeSetStatus,
  transitionChangeItems,
  type ChangeItemDiffRow,
  type ChangeSetWithItems,
} from "@/lib/db/queries";
import type {
  Actor,
  ChangeAuditAction,
  ChangeItem,
  ChangeSet,
  ChangeSetVerification,
  ChangeTarget,
  VisiblePlace,
} from "@/lib/db/schema";
import { currentActor } from "@/lib/audit/actor-context";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { capJson } from "./cap";
import { chainedOn } from "./chains";
import { decodeItemCursor, decodeSetCursor, encodeItemCursor, encodeSetCursor } from "./cursor";
import type { PlannedItem } from "./plan";
import type { WrittenItem } from "@/lib/sites/items";

/** Where a turn's writes go: which conversation turn, which user and site, which target. */
export type TurnScope = {
  userId: string;
  siteId: string;
  conversationId: string;
  turnId: string;
  target: ChangeTarget;
  sandboxId?: string | null;
};

export type PublicChangeItem = {
  id: string;
  kind: string;
  targetId: string;
  title: string;
  summary: string;
  action: string;
  before: unknown;
  after: unknown;
  status: string;
  visible: boolean;
  /** Where visitors would see it, as the site named the places ("its attachment page"); absent = not asked. */
  places?: VisiblePlace[];
  /** Set when `before` or `after` was cut to DIFF_SIDE_MAX_BYTES; `GET …/items/:itemId` gives the item whole. */
  truncated?: true;
  /** A rehearsal's item that an Apply made live: the live change set it is in. */
  madeLiveBy?: string;
  /** Who asked for it (docs/teams.md); absent on items made before teams. */
  actor?: Actor;
  /**
   * The earlier item of the set this one was planned on top of (a chained change, ./chains.ts): it is written only
   * with or after that one, and that one is undone only with it.
   */
  restsOn?: string;
};

export type PublicChangeSet = {
  id: string;
  siteId: string;
  conversationId: string;
  target: ChangeTarget;
  sandboxId?: string;
  status: string;
  createdAt: string;
  appliedAt?: string;
  undoneAt?: string;
  /** When another instance took over an Apply or Undo a dead process left (docs/change-sets.md). */
  resumedAt?: string;
  /** The look at the live site after the last write, Apply or Undo (docs/verification.md). */
  verification?: ChangeSetVerification;
  /** Who asked for it: a member in the chat, an MCP client, a job (docs/teams.md). */
  requestedBy?: Actor;
  /** Who clicked what on it, oldest first (added by the routes and pages that show it). */
  activity?: ChangeActivity[];
  items: PublicChangeItem[];
};

export type ChangeActivity = { action: string; actor: Actor; at: string };

/** Each side of a diff on a diff page is at most this much JSON (a page of 100 items stays under about 13 MB). */
export const DIFF_SIDE_MAX_BYTES = 64 * 1024;
/** Items per page of a change set's diff. */
export const ITEMS_PAGE_SIZE = 100;
/** Change sets per page of the list, unless `?limit=` (up to LIST_MAX_PAGE_SIZE) says otherwise. */
export const LIST_PAGE_SIZE = 20;
export const LIST_MAX_PAGE_SIZE = 100;
const LIST_TITLES = 10;
const LIST_TITLE_LENGTH = 200;

type ItemFields = Pick<
  ChangeItem,
  "id" | "kind" | "ref" | "title" | "summary" | "action" | "before" | "after" | "status" | "visible"
> &
  Partial<Pick<ChangeItem, "madeLiveBy" | "places" | "actor" | "change">> &
  Partial<Pick<ChangeItemDiffRow, "expect">>;

/**
 * The wire item, whole: the chat's approval cards, the review page and Apply/Undo answers show exactly what is
 * approved or done, so they never cut a diff.
 */
export function publicChangeItem(item: ItemFields): PublicChangeItem {
  return wireItem(item, true);
}

/** The wire item for a diff page: each side capped at DIFF_SIDE_MAX_BYTES, `truncated` when cut (in SQL or here). */
export function cappedChangeItem(item: ItemFields & Partial<Pick<ChangeItemDiffRow, "beforeCut" | "afterCut">>) {
  return wireItem(item, false);
}

function wireItem(
  item: ItemFields & Partial<Pick<ChangeItemDiffRow, "beforeCut" | "afterCut">>,
  whole: boolean,
): PublicChangeItem {
  const before = whole ? { value: item.before, cut: false } : capJson(item.before, DIFF_SIDE_MAX_BYTES);
  const after = whole ? { value: item.after, cut: false } : capJson(item.after, DIFF_SIDE_MAX_BYTES);
  const truncated = before.cut || after.cut || item.beforeCut === true || item.afterCut === true;
  const restsOn = chainedOn({ expect: item.change?.expect ?? item.expect ?? null });
  return {
    id: item.id,
    kind: item.kind,
    targetId: item.ref,
    title: item.title,
    summary: item.summary,
    action: item.action,
    before: before.value,
    after: after.value,
    status: item.status === "undoing" ? "applied" : item.status,
    visible: item.visible,
    ...(item.places?.length ? { places: item.places } : {}),
    ...(item.madeLiveBy ? { madeLiveBy: item.madeLiveBy } : {}),
    ...(item.actor ? { actor: item.actor } : {}),
    ...(restsOn ? { restsOn } : {}),
    ...(truncated ? { truncated: true as const } : {}),
  };
}

/** The set's fields as the wire gives them, without items. */
function publicChangeSetFields(set: ChangeSet) {
  return {
    id: set.id,
    siteId: set.siteId,
    conversationId: set.conversationId,
    target: set.target,
    ...(set.sandboxId ? { sandboxId: set.sandboxId } : {}),
    status: set.status,
    createdAt: set.createdAt.toISOString(),
    ...(set.appliedAt ? { appliedAt: set.appliedAt.toISOString() } : {}),
    ...(set.undoneAt ? { undoneAt: set.undoneAt.toISOString() } : {}),
    ...(set.resumedAt ? { resumedAt: set.resumedAt.toISOString() } : {}),
    ...(set.verification ? { verification: set.verification } : {}),
    ...(set.requestedBy ? { requestedBy: set.requestedBy } : {}),
  };
}

/** A whole change set with its items whole (apply, undo, discard and the review page answer with it). */
export function publicChangeSet(set: ChangeSetWithItems): PublicChangeSet {
  return { ...publicChangeSetFields(set), items: set.items.map(publicChangeItem) };
}

/**
 * The items one click covers (API.md v1.3): the chosen ones (`itemIds`), or every item up to the last one the page
 * drew (`upTo`: items added later, by a job still planning, are not covered), or all. `404` for an unknown item.
 */
export function itemsCovered<Item extends { id: string; seq: number }>(
  items: Item[],
  request: { itemIds?: string[]; upTo?: string },
): Item[] {
  if (request.itemIds?.length) {
    const wanted = new Set(request.itemIds);
    const chosen = items.filter((item) => wanted.has(item.id));
    if (chosen.length !== wanted.size)
      throw new AppError("not_found", "Some of those items are not in this change set.");
    return chosen;
  }
  if (request.upTo) {
    const mark = items.find((item) => item.id === request.upTo);
    if (!mark) throw new AppError("not_found", "The last item the page showed is not in this change set.");
    return items.filter((item) => item.seq <= mark.seq);
  }
  return items;
}

/** A change set in the list: what it is, how many items and which titles; its diff is fetched when opened. */
export type ChangeSetSummary = Omit<PublicChangeSet, "siteId" | "items"> & { itemCount: number; titles: string[] };

export type ChangeSetList = { changeSets: ChangeSetSummary[]; nextCursor?: string };

const notFound = () => new AppError("not_found", "There is no such change set for this site.");

export async function getChangeSet(input: {
  userId: string;
  siteId: string;
  changeSetId: string;
}): Promise<ChangeSetWithItems> {
  const set = await findChangeSet({ id: input.changeSetId, userId: input.userId, siteId: input.siteId });
  if (!set) throw notFound();
  return set;
}

/**
 * A page of a site's change sets, newest first, as summaries computed in SQL (no item's before/after is read);
 * `nextCursor` names the next page while there is one.
 */
export async function listSiteChangeSets(input: {
  userId: string;
  siteId: string;
  limit?: number;
  cursor?: string;
}): Promise<ChangeSetList> {
  const limit = Math.min(Math.max(1, input.limit ?? LIST_PAGE_SIZE), LIST_MAX_PAGE_SIZE);
  const rows = await listChangeSetSummaries({
    userId: input.userId,
    siteId: input.siteId,
    limit: limit + 1,
    before: input.cursor === undefined ? undefined : decodeSetCursor(input.cursor),
    maxTitles: LIST_TITLES,
    maxTitleLength: LIST_TITLE_LENGTH,
  });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    changeSets: page.map((row) => {
      const { siteId: _siteId, ...fields } = publicChangeSetFields(row);
      return { ...fields, itemCount: row.itemCount, titles: row.titles };
    }),
    ...(rows.length > limit && last
      ? { nextCursor: encodeSetCursor({ createdAt: last.createdAtKey, id: last.id }) }
      : {}),
  };
}

export type ChangeSetPage = { changeSet: PublicChangeSet & { itemCount: number }; nextCursor?: string };

/** A change set with one page of its items (ITEMS_PAGE_SIZE, in order), each diff capped in SQL and here. */
export async function showChangeSetPage(input: {
  userId: string;
  siteId: string;
  changeSetId: string;
  cursor?: string;
}): Promise<ChangeSetPage> {
  const afterSeq = input.cursor === undefined ? undefined : decodeItemCursor(input.cursor);
  const set = await findChangeSetSummary({ id: input.changeSetId, userId: input.userId, siteId: input.siteId });
  if (!set) throw notFound();
  const rows = await listChangeItemDiffs({
    changeSetId: set.id,
    afterSeq,
    limit: ITEMS_PAGE_SIZE + 1,
    cap: DIFF_SIDE_MAX_BYTES,
  });
  const page = rows.slice(0, ITEMS_PAGE_SIZE);
  const last = page.at(-1);
  return {
    changeSet: {
      ...publicChangeSetFields(set),
      itemCount: set.itemCount,
      items: page.map(cappedChangeItem),
    },
    ...(rows.length > ITEMS_PAGE_SIZE && last ? { nextCursor: encodeItemCursor(last.seq) } : {}),
  };
}

/** One item of a change set with its `before`/`after` whole (the diff answers cap them). */
export async function getWholeChangeItem(input: {
  userId: string;
  siteId: string;
  changeSetId: string;
  itemId: string;
}): Promise<PublicChangeItem> {
  const set = await findChangeSetSummary({ id: input.changeSetId, userId: input.userId, siteId: input.siteId });
  const item = set ? await findChangeItem({ changeSetId: set.id, id: input.itemId }) : undefined;
  if (!item) throw new AppError("not_found", "There is no such item in this change set.");
  return publicChangeItem(item);
}

/** Records a change-set event in the audit; a failure to record is logged, never hides the outcome. */
export async function auditChange(row: {
  changeSetId: string;
  siteId: string;
  userId: string;
  action: ChangeAuditAction;
  itemIds: string[];
  outcome: string;
  detail?: string;
}): Promise<void> {
  try {
    await insertChangeAudit({ id: randomUUID(), ...row, actor: currentActor(), at: now() });
  } catch (error) {
    log.error("could not write the change audit row", { error, changeSetId: row.changeSetId, action: row.action });
  }
}

const toInsert = (changeSetId: string, toolCallId: string, planned: PlannedItem) => ({
  id: randomUUID(),
  changeSetId,
  toolCallId,
  kind: planned.kind,
  ref: planned.ref,
  action: planned.action,
  title: planned.title,
  summary: planned.summary,
  before: planned.before,
  after: planned.after,
  visible: planned.visible,
  places: planned.places ?? null,
  change: planned.change,
  beforeState: planned.beforeState,
  versionRead: planned.versionRead,
  actor: currentActor(),
});

/** Stores a plan that waits for the owner's click: its items are `pending` in the turn's set. */
export async function recordPendingPlan(
  scope: TurnScope,
  toolCallId: string,
  items: PlannedItem[],
): Promise<{ changeSetId: string; items: ChangeItem[] }> {
  const at = now();
  const set = await ensureChangeSet({ id: randomUUID(), ...scope, requestedBy: currentActor(), now: at });
  const rows = await insertChangeItems(
    items.map((p) => ({ ...toInsert(set.id, toolCallId, p), status: "pending", now: at })),
  );
  await refreshChangeSetStatus({ id: set.id, now: at });
  return { changeSetId: set.id, items: rows };
}

/** Stores items the site has just written (no click needed, or written after one); `detail` says who asked. */
export async function recordWritten(
  scope: TurnScope,
  toolCallId: string,
  planned: PlannedItem[],
  written: WrittenItem[],
  detail?: string,
): Promise<{ changeSetId: string; items: ChangeItem[] }> {
  const at = now();
  const set = await ensureChangeSet({ id: randomUUID(), ...scope, requestedBy: currentActor(), now: at });
  const rows = await insertChangeItems(
    planned.map((p, index) => {
      const done = written[index];
      return {
        ...toInsert(set.id, toolCallId, p),
        ref: done?.ref ?? p.ref,
        title: p.title || done?.title || "",
        afterState: done?.after ?? null,
        versionAfter: done?.version ?? null,
        revisionId: done?.revisionId ?? null,
        status: "applied" as const,
        now: at,
      };
    }),
  );
  await refreshChangeSetStatus({ id: set.id, now: at });
  await auditChange({
    changeSetId: set.id,
    siteId: scope.siteId,
    userId: scope.userId,
    action: "write",
    itemIds: rows.map((r) => r.id),
    outcome: "ok",
    ...(detail ? { detail } : {}),
  });
  return { changeSetId: set.id, items: rows };
}

/** The pending items an approved tool call will write: exactly what the approval card showed. */
export async function pendingPlanFor(input: ToolCallOfTurn): Promise<ChangeItem[]> {
  return listPendingItemsForToolCall(input);
}

/** The items of the turn's set that wait for the click: a later plan of the turn rests on them. */
export async function pendingItemsOfTurn(scope: TurnScope): Promise<ChangeItem[]> {
  return listPendingItemsOfTurn({ conversationId: scope.conversationId, turnId: scope.turnId, target: scope.target });
}

/** Every item of a change set, in order. */
export async function itemsOfSet(changeSetId: string): Promise<ChangeItem[]> {
  return getChangeSetItems(changeSetId);
}

/** Every item a tool call of this turn planned or wrote, whatever its status (a card shows an upload beside its use). */
export async function itemsOfToolCall(input: ToolCallOfTurn): Promise<ChangeItem[]> {
  return listItemsForToolCall(input);
}

/** Pending items that will not be written (denied, unanswered, stale): the set's status follows. */
export async function closePlan(items: ChangeItem[], status: "denied" | "failed"): Promise<void> {
  if (items.length === 0) return;
  const at = now();
  await transitionChangeItems({ ids: items.map((i) => i.id), from: "pending", to: status, now: at });
  await refreshChangeSetStatus({ id: items[0]!.changeSetId, now: at });
}

/** The owner answered an approval: deny closes its plan; both are audited with who and when. */
export async function recordApprovalDecision(input: {
  userId: string;
  siteId: string;
  conversationId: string;
  /** The assistant message that asked (a tool call's id is told apart by its turn). */
  turnId: string;
  toolCallId: string;
  approved: boolean;
  reason?: string;
}): Promise<void> {
  const items = await listPendingItemsForToolCall(input);
  if (items.length === 0) return;
  if (!input.approved) await closePlan(items, "denied");
  await auditChange({
    changeSetId: items[0]!.changeSetId,
    siteId: input.siteId,
    userId: input.userId,
    action: input.approved ? "approve" : "deny",
    itemIds: items.map((i) => i.id),
    outcome: input.approved ? "ok" : "denied",
    detail: input.reason,
  });
}
