/** Change sets: one per chat turn and target, their items, and the audit of approvals, applies and undos. */
import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import { getDb } from "../index";
import { statusFromItems } from "./change-set-status";
import {
  type Actor,
  changeAudit,
  changeItems,
  changeSets,
  type ChangeAudit,
  type ChangeAuditAction,
  type ChangeItem,
  type ChangeItemStatus,
  type ChangeSet,
  type ChangeTarget,
  type ItemChange,
  type VisiblePlace,
} from "../schema";

export type ChangeSetWithItems = ChangeSet & { items: ChangeItem[] };

/** The turn's change set for this target, made on first use; a second call for the same turn returns the same row. */
export async function ensureChangeSet(input: {
  id: string;
  userId: string;
  siteId: string;
  conversationId: string;
  turnId: string;
  target: ChangeTarget;
  sandboxId?: string | null;
  /** Who asked (kept from the first write of the turn). */
  requestedBy?: Actor | null;
  now: Date;
}): Promise<ChangeSet> {
  const db = await getDb();
  const [row] = await db
    .insert(changeSets)
    .values({
      id: input.id,
      userId: input.userId,
      siteId: input.siteId,
      conversationId: input.conversationId,
      turnId: input.turnId,
      target: input.target,
      sandboxId: input.sandboxId ?? null,
      requestedBy: input.requestedBy ?? null,
      status: "pending",
      createdAt: input.now,
      updatedAt: input.now,
    })
    .onConflictDoUpdate({
      target: [changeSets.conversationId, changeSets.turnId, changeSets.target],
      // A no-op update so the existing row comes back.
      set: { updatedAt: sql`${changeSets.updatedAt}` },
    })
    .returning();
  return row!;
}

export type ChangeItemInsert = {
  id: string;
  changeSetId: string;
  toolCallId?: string | null;
  kind: string;
  ref: string;
  action: ItemChange["action"];
  title: string;
  summary: string;
  before: unknown;
  after: unknown;
  visible: boolean;
  places?: VisiblePlace[] | null;
  change: ItemChange;
  beforeState: Record<string, unknown> | null;
  afterState?: Record<string, unknown> | null;
  versionRead: string | null;
  versionAfter?: string | null;
  revisionId?: number | null;
  /** Who asked for the item (docs/teams.md). */
  actor?: Actor | null;
  /** `writing`: a bulk job's invisible item recorded before its write (lib/workflows/bulk-job.ts). */
  status: Extract<ChangeItemStatus, "pending" | "applied" | "writing">;
  now: Date;
};

/** Adds items after the set's existing ones, in order, in one transaction. */
export async function insertChangeItems(items: ChangeItemInsert[]): Promise<ChangeItem[]> {
  if (items.length === 0) return [];
  const db = await getDb();
  return db.transaction(async (tx) => {
    const changeSetId = items[0]!.changeSetId;
    // Serialises appends to one set, so two tool calls of a turn never take the same position.
    await tx.execute(sql`select id from change_sets where id = ${changeSetId} for update`);
    return appendChangeItems(tx, changeSetId, items);
  });
}

type Transaction = Parameters<Parameters<Awaited<ReturnType<typeof getDb>>["transaction"]>[0]>[0];

/** Inside a transaction that serialises appends to the set: the items after its existing ones, in order. */
export async function appendChangeItems(
  tx: Transaction,
  changeSetId: string,
  items: ChangeItemInsert[],
): Promise<ChangeItem[]> {
  const [{ next }] = (await tx
    .select({ next: sql<number>`coalesce(max(${changeItems.seq}), 0) + 1` })
    .from(changeItems)
    .where(eq(changeItems.changeSetId, changeSetId))) as [{ next: number }];
  const rows = await tx
    .insert(changeItems)
    .values(
      items.map(({ now, ...item }, index) => ({
        ...item,
        seq: Number(next) + index,
        before: item.before ?? null,
        after: item.after ?? null,
        afterState: item.afterState ?? null,
        places: item.places ?? null,
        versionAfter: item.versionAfter ?? null,
        revisionId: item.revisionId ?? null,
        createdAt: now,
        appliedAt: item.status === "applied" ? now : null,
      })),
    )
    .returning();
  return rows.sort((a, b) => a.seq - b.seq);
}

/** Pending items of a turn's change set for one target, in order (a later plan of the turn rests on them). */
export async function listPendingItemsOfTurn(input: {
  conversationId: string;
  turnId: string;
  target: ChangeTarget;
}): Promise<ChangeItem[]> {
  const db = await getDb();
  const rows = await db
    .select({ item: changeItems })
    .from(changeItems)
    .innerJoin(changeSets, eq(changeSets.id, changeItems.changeSetId))
    .where(
      and(
        eq(changeSets.conversationId, input.conversationId),
        eq(changeSets.turnId, input.turnId),
        eq(changeSets.target, input.target),
        eq(changeItems.status, "pending"),
      ),
    )
    .orderBy(asc(changeItems.seq));
  return rows.map((r) => r.item);
}

/**
 * A tool call's items are found by its turn as well as its id: providers do not promise ids unique within a
 * conversation (a model server may number them per response, "call_0" every turn), so the turn tells them apart.
 */
export type ToolCallOfTurn = { conversationId: string; turnId: string; toolCallId: string };

/** Pending items a tool call planned (what its approval shows and what gets written once approved). */
export function listPendingItemsForToolCall(input: ToolCallOfTurn): Promise<ChangeItem[]> {
  return listItemsForToolCall(input, "pending");
}

/** Every item of a tool call in its turn (or only those in `status`), in the order they were recorded. */
export async function listItemsForToolCall(
  input: ToolCallOfTurn,
  status?: ChangeItem["status"],
): Promise<ChangeItem[]> {
  const db = await getDb();
  const rows = await db
    .select({ item: changeItems })
    .from(changeItems)
    .innerJoin(changeSets, eq(changeSets.id, changeItems.changeSetId))
    .where(
      and(
        eq(changeSets.conversationId, input.conversationId),
        eq(changeSets.turnId, input.turnId),
        eq(changeItems.toolCallId, input.toolCallId),
        status ? eq(changeItems.status, status) : undefined,
      ),
    )
    .orderBy(asc(changeItems.seq));
  return rows.map((r) => r.item);
}

/** Records what the site answered for an item that was written. */
export async function markChangeItemApplied(input: {
  id: string;
  ref: string;
  after: unknown;
  afterState: Record<string, unknown> | null;
  versionAfter: string | null;
  revisionId?: number | null;
  now: Date;
}): Promise<void> {
  const db = await getDb();
  await db
    .update(changeItems)
    .set({
      status: "applied",
      ref: input.ref,
      after: input.after ?? null,
      afterState: input.afterState,
      versionAfter: input.versionAfter,
      revisionId: input.revisionId ?? null,
      appliedAt: input.now,
    })
    .where(eq(changeItems.id, input.id));
}

/**
 * Records what the site answered for an item a run wrote (lib/changes/journal.ts), leaving its diff as the owner
 * approved it; only from `writing` (or `applied`, the same answer recorded again after a crash).
 */
export async function recordItemWritten(input: {
  id: string;
  ref: string;
  afterState: Record<string, unknown> | null;
  versionAfter: string | null;
  revisionId?: number | null;
  now: Date;
}): Promise<void> {
  const db = await getDb();
  await db
    .update(changeItems)
    .set({
      status: "applied",
      ref: input.ref,
      afterState: input.afterState,
      versionAfter: input.versionAfter,
      revisionId: input.revisionId ?? null,
      appliedAt: sql`coalesce(${changeItems.appliedAt}, ${input.now.toISOString()}::timestamptz)`,
    })
    .where(and(eq(changeItems.id, input.id), inArray(changeItems.status, ["writing", "applied"])));
}

/**
 * Moves items from one status to another, only those still in `from`, in one statement; returns the ids moved.
 * Undo claims its items this way (applied → undoing), so two undos of one item cannot both run.
 */
export async function transitionChangeItems(input: {
  ids: string[];
  from: ChangeItemStatus;
  to: ChangeItemStatus;
  now: Date;
}): Promise<string[]> {
  if (input.ids.length === 0) return [];
  const db = await getDb();
  const rows = await db
    .update(changeItems)
    .set({ status: input.to, ...(input.to === "undone" ? { undoneAt: input.now } : {}) })
    .where(and(inArray(changeItems.id, input.ids), eq(changeItems.status, input.from)))
    .returning({ id: changeItems.id });
  return rows.map((r) => r.id);
}

/** Derives the set's status from its items and stores it, in one statement (no read-then-write); returns the set. */
export async function refreshChangeSetStatus(input: { id: string; now: Date }): Promise<ChangeSet | undefined> {
  const db = await getDb();
  const next = statusFromItems(db, [input.id], ["applying", "discarded"]);
  const [row] = await db
    .update(changeSets)
    .set({
      status: sql`${next.status}`,
      updatedAt: input.now,
      appliedAt: sql`case when ${next.status} in ('applied', 'partially_applied') then coalesce(${changeSets.appliedAt}, ${input.now.toISOString()}::timestamptz) else ${changeSets.appliedAt} end`,
      undoneAt: sql`case when ${next.status} in ('undone', 'partially_undone') then ${input.now.toISOString()}::timestamptz else ${changeSets.undoneAt} end`,
    })
    .from(next)
    .where(and(eq(changeSets.id, input.id), eq(changeSets.id, next.id)))
    .returning();
  return row;
}

async function withItems(sets: ChangeSet[]): Promise<ChangeSetWithItems[]> {
  if (sets.length === 0) return [];
  const db = await getDb();
  const items = await db
    .select()
    .from(changeItems)
    .where(
      inArray(
        changeItems.changeSetId,
        sets.map((s) => s.id),
      ),
    )
    .orderBy(asc(changeItems.seq));
  return sets.map((set) => ({ ...set, items: items.filter((i) => i.changeSetId === set.id) }));
}

/** A change set with its items, only for its user and site (undefined otherwise, never saying which). */
export async function findChangeSet(input: {
  id: string;
  userId: string;
  siteId: string;
}): Promise<ChangeSetWithItems | undefined> {
  const db = await getDb();
  const rows = await db
    .select()
    .from(changeSets)
    .where(and(eq(changeSets.id, input.id), eq(changeSets.userId, input.userId), eq(changeSets.siteId, input.siteId)))
    .limit(1);
  return (await withItems(rows))[0];
}

/** The turn's change set for a target, if the turn changed (or planned to change) anything. */
export async function findChangeSetForTurn(input: {
  conversationId: string;
  turnId: string;
  target: ChangeTarget;
}): Promise<ChangeSet | undefined> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(changeSets)
    .where(
      and(
        eq(changeSets.conversationId, input.conversationId),
        eq(changeSets.turnId, input.turnId),
        eq(changeSets.target, input.target),
      ),
    )
    .limit(1);
  return row;
}

/** A site's change sets for its owner, newest first, with their items. */
export async function listChangeSets(input: {
  userId: string;
  siteId: string;
  limit?: number;
}): Promise<ChangeSetWithItems[]> {
  const db = await getDb();
  const sets = await db
    .select()
    .from(changeSets)
    .where(and(eq(changeSets.userId, input.userId), eq(changeSets.siteId, input.siteId)))
    .orderBy(desc(changeSets.createdAt), desc(changeSets.id))
    .limit(input.limit ?? 50);
  return withItems(sets);
}

export async function insertChangeAudit(row: {
  id: string;
  changeSetId: string;
  siteId: string;
  userId: string;
  action: ChangeAuditAction;
  itemIds: string[];
  outcome: string;
  detail?: string | null;
  actor?: Actor | null;
  at: Date;
}): Promise<void> {
  const db = await getDb();
  await db.insert(changeAudit).values({ ...row, detail: row.detail ?? null, actor: row.actor ?? null });
}

export async function listChangeAudit(input: { changeSetId: string }): Promise<ChangeAudit[]> {
  const db = await getDb();
  return db
    .select()
    .from(changeAudit)
    .where(eq(changeAudit.changeSetId, input.changeSetId))
    .orderBy(asc(changeAudit.at), asc(changeAudit.id));
}

/** A change set as the Changes list shows it: no item bodies, only how many items and their titles. */
export type ChangeSetSummaryRow = ChangeSet & {
  itemCount: number;
  titles: string[];
  /** `created_at` to the microsecond, for a keyset cursor that skips and repeats nothing. */
  createdAtKey: string;
};

/** A sql field selected as `::text` (the drivers decode jsonb differently, and a JSON string is ambiguous). */
const parsedJson = (value: unknown) => (typeof value === "string" ? JSON.parse(value) : null);
const parsedBoolean = (value: unknown) => value === true || value === "t" || value === "true";

const createdAtKey = sql<string>`to_char(${changeSets.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
const itemCountOfSet = sql<number>`(select count(*) from change_items ci where ci.change_set_id = "change_sets"."id")`;

/**
 * A page of a site's change sets (whoever of its members asked; the caller checked the reader's role), newest first (created, then id), after a keyset position;
 * `itemCount` and up to `maxTitles` distinct item titles are computed in SQL, so no item body is read.
 */
export async function listChangeSetSummaries(input: {
  userId: string;
  siteId: string;
  limit: number;
  before?: { createdAt: string; id: string };
  maxTitles: number;
  maxTitleLength: number;
}): Promise<ChangeSetSummaryRow[]> {
  const db = await getDb();
  const titles = sql`(select coalesce(jsonb_agg(t.title order by t.first), '[]'::jsonb) from (
      select left(ci.title, ${input.maxTitleLength}) as title, min(ci.seq) as first from change_items ci
      where ci.change_set_id = "change_sets"."id" and ci.title <> ''
      group by 1 order by min(ci.seq) limit ${input.maxTitles}) t)::text`;
  const rows = await db
    .select({
      set: changeSets,
      itemCount: itemCountOfSet.mapWith(Number),
      titles: titles.mapWith(parsedJson),
      createdAtKey,
    })
    .from(changeSets)
    .where(
      and(
        eq(changeSets.siteId, input.siteId),
        input.before
          ? sql`(${changeSets.createdAt}, ${changeSets.id}) < (${input.before.createdAt}::timestamptz, ${input.before.id})`
          : undefined,
      ),
    )
    .orderBy(desc(changeSets.createdAt), desc(changeSets.id))
    .limit(input.limit);
  return rows.map((r) => ({
    ...r.set,
    itemCount: r.itemCount,
    titles: r.titles as string[],
    createdAtKey: r.createdAtKey,
  }));
}

/** A change set without its items (and how many it has), only for its user and site. */
export async function findChangeSetSummary(input: {
  id: string;
  userId: string;
  siteId: string;
}): Promise<(ChangeSet & { itemCount: number }) | undefined> {
  const db = await getDb();
  const [row] = await db
    .select({ set: changeSets, itemCount: itemCountOfSet.mapWith(Number) })
    .from(changeSets)
    .where(and(eq(changeSets.id, input.id), eq(changeSets.userId, input.userId), eq(changeSets.siteId, input.siteId)))
    .limit(1);
  return row ? { ...row.set, itemCount: row.itemCount } : undefined;
}

/** An item as a diff page shows it: `before`/`after` already trimmed in SQL when their JSON is over the cap. */
export type ChangeItemDiffRow = Pick<
  ChangeItem,
  | "id"
  | "seq"
  | "kind"
  | "ref"
  | "action"
  | "title"
  | "summary"
  | "status"
  | "visible"
  | "places"
  | "before"
  | "after"
  | "actor"
> & {
  beforeCut: boolean;
  afterCut: boolean;
  /** The version the item's change expects (`pending:<id>` for a change chained on another item of the set). */
  expect: string | null;
};

/**
 * A jsonb value cut down in SQL when its text is over `cap` bytes: an object keeps its keys with each long value
 * cut to `cap` characters (non-strings as their JSON text), anything else becomes its text cut to `cap`
 * characters. The caller trims to the exact size; this only keeps big bodies out of the app's memory.
 */
function trimmedJson(column: typeof changeItems.before | typeof changeItems.after, cap: number) {
  return sql`case
    when ${column} is null or octet_length(${column}::text) <= ${cap} then ${column}
    when jsonb_typeof(${column}) = 'object' then (
      select coalesce(jsonb_object_agg(e.key, case
        when octet_length(e.value::text) <= ${cap} then e.value
        when jsonb_typeof(e.value) = 'string' then to_jsonb(left(e.value #>> '{}', ${cap}))
        else to_jsonb(left(e.value::text, ${cap})) end), '{}'::jsonb)
      from jsonb_each(${column}) e)
    when jsonb_typeof(${column}) = 'string' then to_jsonb(left(${column} #>> '{}', ${cap}))
    else to_jsonb(left(${column}::text, ${cap}))
  end::text`.mapWith(parsedJson);
}

/** A page of a set's items in order, after a position (`seq`), with `before`/`after` trimmed to about `cap` bytes. */
export async function listChangeItemDiffs(input: {
  changeSetId: string;
  afterSeq?: number;
  limit: number;
  cap: number;
}): Promise<ChangeItemDiffRow[]> {
  const db = await getDb();
  return db
    .select({
      id: changeItems.id,
      seq: changeItems.seq,
      kind: changeItems.kind,
      ref: changeItems.ref,
      action: changeItems.action,
      title: changeItems.title,
      summary: changeItems.summary,
      status: changeItems.status,
      visible: changeItems.visible,
      places: changeItems.places,
      actor: changeItems.actor,
      expect: sql<string | null>`${changeItems.change}->>'expect'`,
      before: trimmedJson(changeItems.before, input.cap),
      after: trimmedJson(changeItems.after, input.cap),
      beforeCut: sql<boolean>`coalesce(octet_length(${changeItems.before}::text) > ${input.cap}, false)`.mapWith(
        parsedBoolean,
      ),
      afterCut: sql<boolean>`coalesce(octet_length(${changeItems.after}::text) > ${input.cap}, false)`.mapWith(
        parsedBoolean,
      ),
    })
    .from(changeItems)
    .where(
      and(
        eq(changeItems.changeSetId, input.changeSetId),
        input.afterSeq === undefined ? undefined : sql`${changeItems.seq} > ${input.afterSeq}`,
      ),
    )
    .orderBy(asc(changeItems.seq))
    .limit(input.limit);
}

/** One item of a set, whole. */
export async function findChangeItem(input: { changeSetId: string; id: string }): Promise<ChangeItem | undefined> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(changeItems)
    .where(and(eq(changeItems.changeSetId, input.changeSetId), eq(changeItems.id, input.id)))
    .limit(1);
  return row;
}

/** The owner's edit of a pending item's proposed value; only while it still waits (undefined otherwise). */
export async function updatePendingChangeItem(input: {
  id: string;
  after: unknown;
  change: ItemChange;
}): Promise<ChangeItem | undefined> {
  const db = await getDb();
  const [row] = await db
    .update(changeItems)
    .set({ after: input.after, change: input.change })
    .where(and(eq(changeItems.id, input.id), eq(changeItems.status, "pending")))
    .returning();
  return row;
}

/** How many items of a set wait for approval up to (and with) `seq`: what an "Approve all" drawn there covers. */
export async function countPendingUpTo(input: { changeSetId: string; seq: number }): Promise<number> {
  const db = await getDb();
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(changeItems)
    .where(
      and(
        eq(changeItems.changeSetId, input.changeSetId),
        eq(changeItems.status, "pending"),
        sql`${changeItems.seq} <= ${input.seq}`,
      ),
    );
  return Number(row?.n ?? 0);
}

/**
 * An item recorded to be written at once (`writing`) that the site found visible at write time: it waits for the
 * owner's click instead (`pending`), with the places the site named. One statement: only an item still `writing`.
 */
export async function holdVisibleItem(input: { id: string; places: VisiblePlace[]; now: Date }): Promise<boolean> {
  const db = await getDb();
  const rows = await db
    .update(changeItems)
    .set({ status: "pending", visible: true, places: input.places })
    .where(and(eq(changeItems.id, input.id), eq(changeItems.status, "writing")))
    .returning({ id: changeItems.id });
  return rows.length === 1;
}
