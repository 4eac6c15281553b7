/**
 * Change sets as the service keeps them: every agent write lands in its turn's set (planned items waiting for the
 * owner's click, or written items), and the wire format the contract gives (`changeSet`, docs/change-sets.md).
 */
import { randomUUID } from "node:crypto";
import { now } from "@/lib/clock";
import {
  ensureChangeSet,
  findChangeSet,
  insertChangeAudit,
  insertChangeItems,
  listChangeSets,
  listPendingItemsForToolCall,
  markChangeItemApplied,
  refreshChangeSetStatus,
  transitionChangeItems,
  type ChangeSetWithItems,
} from "@/lib/db/queries";
import type { ChangeAuditAction, ChangeItem, ChangeTarget } from "@/lib/db/schema";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import type { PlannedItem } from "./plan";
import type { WrittenItem } from "./site-items";

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
  items: PublicChangeItem[];
};

export function publicChangeItem(item: ChangeItem): PublicChangeItem {
  return {
    id: item.id,
    kind: item.kind,
    targetId: item.ref,
    title: item.title,
    summary: item.summary,
    action: item.action,
    before: item.before,
    after: item.after,
    status: item.status === "undoing" ? "applied" : item.status,
    visible: item.visible,
  };
}

export function publicChangeSet(set: ChangeSetWithItems): PublicChangeSet {
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
    items: set.items.map(publicChangeItem),
  };
}

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

export async function listSiteChangeSets(input: { userId: string; siteId: string }): Promise<PublicChangeSet[]> {
  return (await listChangeSets({ userId: input.userId, siteId: input.siteId })).map(publicChangeSet);
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
    await insertChangeAudit({ id: randomUUID(), ...row, at: now() });
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
  change: planned.change,
  beforeState: planned.beforeState,
  versionRead: planned.versionRead,
});

/** Stores a plan that waits for the owner's click: its items are `pending` in the turn's set. */
export async function recordPendingPlan(
  scope: TurnScope,
  toolCallId: string,
  items: PlannedItem[],
): Promise<{ changeSetId: string; items: ChangeItem[] }> {
  const at = now();
  const set = await ensureChangeSet({ id: randomUUID(), ...scope, now: at });
  const rows = await insertChangeItems(
    items.map((p) => ({ ...toInsert(set.id, toolCallId, p), status: "pending", now: at })),
  );
  await refreshChangeSetStatus({ id: set.id, now: at });
  return { changeSetId: set.id, items: rows };
}

/** Stores items the site has just written (no click needed, or written after one). */
export async function recordWritten(
  scope: TurnScope,
  toolCallId: string,
  planned: PlannedItem[],
  written: WrittenItem[],
): Promise<{ changeSetId: string; items: ChangeItem[] }> {
  const at = now();
  const set = await ensureChangeSet({ id: randomUUID(), ...scope, now: at });
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
  });
  return { changeSetId: set.id, items: rows };
}

/** The pending items an approved tool call will write: exactly what the approval card showed. */
export async function pendingPlanFor(input: { conversationId: string; toolCallId: string }): Promise<ChangeItem[]> {
  return listPendingItemsForToolCall(input);
}

/** Marks pending items written, with what the site answered. */
export async function markPlanWritten(items: ChangeItem[], written: WrittenItem[]): Promise<void> {
  const at = now();
  for (const [index, item] of items.entries()) {
    const done = written[index];
    await markChangeItemApplied({
      id: item.id,
      ref: done?.ref ?? item.ref,
      after: item.after,
      afterState: done?.after ?? null,
      versionAfter: done?.version ?? null,
      revisionId: done?.revisionId ?? null,
      now: at,
    });
  }
  if (items[0]) await refreshChangeSetStatus({ id: items[0].changeSetId, now: at });
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
