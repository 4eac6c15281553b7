/**
 * The chat's write path: how a plan is written, held and shown in the chat. Whether a plan waits for the owner's
 * click is decided by the one use case (lib/agent/call-operation.ts), from where the site says visitors would see
 * each item. A plan that waits is stored as pending items of the turn's change set and shown on the approval card;
 * once approved, exactly those items are written, each only over the version it was planned against. A plan that
 * needs no click is written at once. Either way the write lands in the turn's change set.
 */
import {
  itemsOfToolCall,
  publicChangeItem,
  pendingPlanFor,
  closePlan,
  markPlanWritten,
  recordPendingPlan,
  recordWritten,
  auditChange,
  type TurnScope,
} from "@/lib/changes/change-sets";
import {
  type FilteredItemsError,
  isFilteredItemsError,
  isStaleItemsError,
  readItems,
  writeItems,
  type WrittenItem,
} from "@/lib/sites/items";
import type { ChangeItem } from "@/lib/db/schema";
import type { SiteClient } from "@/lib/sites/types";
import { placedItems } from "./media";
import type { OperationResult, WritePlan } from "./operations";
import { OperationError } from "./operations";

/** A data part of the chat stream that carries a tool call's change items (`data-change`, id = the tool call). */
export type ChangePart = {
  toolCallId: string;
  changeSetId: string;
  status: "pending" | "applied" | "stale";
  items: ReturnType<typeof publicChangeItem>[];
};

export type WriteContext = {
  scope: TurnScope;
  client: SiteClient;
  /** Plans made in this request, by tool call: made once in the approval check, reused by execute. */
  plans: Map<string, Promise<PlanOutcome>>;
  emitChange(part: ChangePart): void;
  /** An approved write landed on the live site: the chat turn starts the look at the live site after it. */
  afterLiveWrite?(write: { changeSetId: string; itemIds: string[] }): void;
};

export type PlanOutcome = { ok: true; plan: WritePlan } | { ok: false; error: unknown };

/** Stores a plan that waits for the click and shows it on the approval card. */
export async function holdPlanForApproval(ctx: WriteContext, toolCallId: string, plan: WritePlan): Promise<void> {
  const { changeSetId, items } = await recordPendingPlan(ctx.scope, toolCallId, plan.items);
  // Files the plan uploaded (written, not visible) are shown on the card beside the change that uses them.
  const shown = [...placedItems(ctx, toolCallId), ...items.map(publicChangeItem)];
  ctx.emitChange({ toolCallId, changeSetId, status: "pending", items: shown });
}

function resultOf(
  summary: string,
  target: OperationResult["target"],
  items: Array<{ before: unknown; after: unknown }>,
  data: unknown,
): OperationResult {
  const [first] = items;
  return {
    summary,
    target,
    ...(items.length === 1 ? { before: first!.before ?? undefined, after: first!.after ?? undefined } : {}),
    ...(items.length > 1
      ? { before: items.map((i) => i.before ?? null), after: items.map((i) => i.after ?? null) }
      : {}),
    data,
  };
}

const written = (items: WrittenItem[]) => items.map((i) => ({ ref: i.ref, version: i.version }));

/** What the site would have changed while saving, in words the model can pass on (nothing was written). */
function filteredError(error: FilteredItemsError): OperationError {
  const lost = error.lost.map((l) => `${l.field}: ${l.lost}`).join("; ");
  return new OperationError(
    `Not written: the site would have stored something other than this change (${lost || "its filters changed it"}), so nothing was changed. Tell the owner in plain words; markup the site does not allow (embeds, scripts, forms, event attributes) cannot be written by Sitewright, and the owner can add it in WordPress.`,
    "sitewright_filtered",
    { cause: error },
  );
}

/**
 * Writes a plan that needs no click (nothing visitors see), and records it in the turn's change set. With
 * `requireInvisible` the site refuses (VisibleItemsError, nothing written) if any item is visible by now.
 */
export async function writePlanNow(
  ctx: WriteContext,
  toolCallId: string,
  plan: WritePlan,
  options: { requireInvisible?: boolean; detail?: string } = {},
): Promise<OperationResult> {
  let done: WrittenItem[];
  try {
    done = await writeItems(
      ctx.client,
      plan.items.map((i) => i.change),
      { requireInvisible: options.requireInvisible },
    );
  } catch (error) {
    if (isFilteredItemsError(error)) throw filteredError(error);
    throw error;
  }
  const { changeSetId, items } = await recordWritten(ctx.scope, toolCallId, plan.items, done, options.detail);
  const shown = [...placedItems(ctx, toolCallId), ...items.map(publicChangeItem)];
  ctx.emitChange({ toolCallId, changeSetId, status: "applied", items: shown });
  return resultOf(plan.summary, plan.target, plan.items, { ...(plan.data?.(written(done)) as object), changeSetId });
}

/**
 * The batch failed without an answer we understand (the site unreachable, a 5xx): the plugin writes all or
 * nothing, so reading the items back tells whether it was written. Either way the plan stops waiting; the audit
 * says which.
 */
async function closeAfterFailure(ctx: WriteContext, items: ChangeItem[], error: unknown) {
  const readable = items.every((i) => i.ref !== "post:new");
  const current = readable
    ? await readItems(
        ctx.client,
        items.map((i) => i.ref),
      ).catch(() => undefined)
    : undefined;
  const untouched = current?.every((item, index) => item.version === items[index]!.versionRead) ?? false;
  await closePlan(items, "failed");
  await auditChange({
    changeSetId: items[0]!.changeSetId,
    siteId: ctx.scope.siteId,
    userId: ctx.scope.userId,
    action: "write",
    itemIds: items.map((i) => i.id),
    outcome: "failed",
    detail: `${untouched ? "Not written" : "Unknown whether it was written"}: ${error instanceof Error ? error.message : String(error)}`,
  });
}

const names = (items: ChangeItem[]) => [...new Set(items.map((i) => `"${i.title}"`))].join(", ");

/** An approved plan the site refused (stale or filtered): closed, audited, and shown as not written on its card. */
async function closeRefusedPlan(
  ctx: WriteContext,
  toolCallId: string,
  items: ChangeItem[],
  refusal: { outcome: "stale" | "filtered"; detail: string },
): Promise<void> {
  const changeSetId = items[0]!.changeSetId;
  await closePlan(items, "failed");
  await auditChange({
    changeSetId,
    siteId: ctx.scope.siteId,
    userId: ctx.scope.userId,
    action: "write",
    itemIds: items.map((i) => i.id),
    ...refusal,
  });
  ctx.emitChange({
    toolCallId,
    changeSetId,
    status: "stale",
    items: items.map((i) => ({ ...publicChangeItem(i), status: "failed" })),
  });
}

/** Closes an approved plan whose write failed, and says why in words the model can pass on (always throws). */
async function failApprovedWrite(
  ctx: WriteContext,
  toolCallId: string,
  items: ChangeItem[],
  error: unknown,
): Promise<never> {
  if (isStaleItemsError(error)) {
    const stale = items.filter((i) => error.items.some((s) => s.ref === i.ref));
    await closeRefusedPlan(ctx, toolCallId, items, {
      outcome: "stale",
      detail: `${names(stale)} changed on the site after it was read.`,
    });
    throw new OperationError(
      `Not written: ${names(stale.length ? stale : items)} changed on the site after it was read (someone edited it meanwhile), so nothing was changed. Tell the owner; read it again and propose the change anew if it is still wanted.`,
      "sitewright_stale",
      { cause: error },
    );
  }
  if (isFilteredItemsError(error)) {
    await closeRefusedPlan(ctx, toolCallId, items, {
      outcome: "filtered",
      detail: error.lost.map((l) => `${l.field}: ${l.lost}`).join("; "),
    });
    throw filteredError(error);
  }
  await closeAfterFailure(ctx, items, error);
  throw error;
}

/** What the model is told of an approved write: the items' summaries, the first item as the target. */
function approvedResult(items: ChangeItem[], done: WrittenItem[], changeSetId: string): OperationResult {
  const summary = [...new Set(items.map((i) => i.summary))].join(" ");
  const first = items[0]!;
  const postId = first.ref.startsWith("post:") ? Number(first.ref.slice(5)) : undefined;
  return resultOf(
    summary,
    postId
      ? { type: first.kind === "post" || first.kind === "media" ? first.kind : "page", id: postId, title: first.title }
      : { type: first.kind === "menu" ? "menu" : "site" },
    items,
    // Only what the model needs: our own words (an operation's name) would trip the phrase scanner on our own result.
    { changeSetId, items: written(done) },
  );
}

/** Writes exactly the plan the owner approved (stored when the approval was asked), over the versions it read. */
export async function writeApprovedPlan(ctx: WriteContext, toolCallId: string): Promise<OperationResult> {
  const items = await pendingPlanFor({ ...ctx.scope, toolCallId });
  if (items.length === 0) {
    throw new OperationError("Not run: there is no approved change waiting for this call.", "approval_required");
  }
  const changeSetId = items[0]!.changeSetId;
  let done: WrittenItem[];
  try {
    done = await writeItems(
      ctx.client,
      items.map((i) => i.change),
    );
  } catch (error) {
    return failApprovedWrite(ctx, toolCallId, items, error);
  }
  await markPlanWritten(items, done);
  await auditChange({
    changeSetId,
    siteId: ctx.scope.siteId,
    userId: ctx.scope.userId,
    action: "write",
    itemIds: items.map((i) => i.id),
    outcome: "ok",
  });
  // The card keeps showing what the call uploaded while it waited (written before the click).
  const uploaded = (await itemsOfToolCall({ ...ctx.scope, toolCallId })).filter(
    (i) => i.kind === "media" && i.action === "create" && !items.some((w) => w.id === i.id),
  );
  ctx.emitChange({
    toolCallId,
    changeSetId,
    status: "applied",
    items: [...uploaded.map(publicChangeItem), ...items.map((i) => ({ ...publicChangeItem(i), status: "applied" }))],
  });
  if (ctx.scope.target === "live") ctx.afterLiveWrite?.({ changeSetId, itemIds: items.map((i) => i.id) });
  return approvedResult(items, done, changeSetId);
}
