/**
 * The chat's write path: how a plan is written, held and shown in the chat. Whether a plan waits for the owner's
 * click is decided by the one use case (lib/agent/call-operation.ts), from where the site says visitors would see
 * each item. A plan that waits is stored as pending items of the turn's change set and shown on the approval card;
 * once approved, exactly those items are written, each only over the version it was planned against. A plan that
 * needs no click is written at once. Either way the write lands in the turn's change set. A second change to an item
 * in the same turn is planned on the state the first pending one leaves, and written with it, in order
 * (lib/changes/chains.ts; docs/change-sets.md, "Several changes to one item").
 */
import { chainedOn, chainWrites, pendingView } from "@/lib/changes/chains";
import {
  itemsOfSet,
  itemsOfToolCall,
  pendingItemsOfTurn,
  publicChangeItem,
  pendingPlanFor,
  closePlan,
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
import { isLeaseLostError, isRunRefusal } from "@/lib/changes/journal";
import { approveCallAsRun } from "@/lib/changes/runs";
import { isClaimTakenError } from "@/lib/db/queries";
import type { ChangeItem } from "@/lib/db/schema";
import { isAppError } from "@/lib/errors";
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
  /** The calls the owner approved in this request: a call resting on one of them writes it first. */
  approvedToolCalls?: ReadonlySet<string>;
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
  // A chain's later items were read as the pending state (lib/changes/chains.ts): its first item's version counts.
  const untouched =
    current?.every((item) => items.some((i) => i.ref === item.ref && i.versionRead === item.version)) ?? false;
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

/**
 * An approved plan that will not be written: closed and audited (a chain refused before the write; a run the site
 * refused has closed and audited its items itself: `refusal` is then null), and shown as not written on its card.
 */
async function closeRefusedPlan(
  ctx: WriteContext,
  toolCallId: string,
  items: ChangeItem[],
  refusal: { outcome: "refused"; detail: string } | null,
): Promise<void> {
  const changeSetId = items[0]!.changeSetId;
  if (refusal) {
    await closePlan(items, "failed");
    await auditChange({
      changeSetId,
      siteId: ctx.scope.siteId,
      userId: ctx.scope.userId,
      action: "write",
      itemIds: items.map((i) => i.id),
      ...refusal,
    });
  }
  ctx.emitChange({
    toolCallId,
    changeSetId,
    status: "stale",
    items: items.map((i) => ({ ...publicChangeItem(i), status: "failed" })),
  });
}

/** An approved call's items, by tool call: the call itself and the earlier calls its items rest on. */
type Calls = Map<string, ChangeItem[]>;

/** What a call written (or refused) together with a later one answers when its own execute comes. */
type Settled = () => OperationResult;
const settledByContext = new WeakMap<WriteContext, Map<string, Settled>>();
const writingByContext = new WeakMap<WriteContext, Promise<unknown>>();

function settledOf(ctx: WriteContext): Map<string, Settled> {
  const settled = settledByContext.get(ctx) ?? new Map<string, Settled>();
  settledByContext.set(ctx, settled);
  return settled;
}

/** Every call of `calls` but `toolCallId` answers the same failure when its own execute comes. */
function settleOthersWith(ctx: WriteContext, toolCallId: string, calls: Calls, error: unknown) {
  for (const call of calls.keys())
    if (call !== toolCallId)
      settledOf(ctx).set(call, () => {
        throw error;
      });
}

/** The site as this turn's pending items will leave it: a later plan of the turn rests on them (live only). */
export async function turnView(ctx: WriteContext): Promise<SiteClient> {
  if (ctx.scope.target !== "live") return ctx.client;
  return pendingView(ctx.client, await pendingItemsOfTurn(ctx.scope));
}

/**
 * A plan made on the state this turn's pending items leave (`turnView`). Only an update chains
 * (lib/changes/chains.ts): a plan that would trash an item with a pending change is made on the live site instead,
 * as if alone (approved after the earlier change was written, it is refused as stale and can be planned again).
 */
export async function planInTurn(ctx: WriteContext, plan: (client: SiteClient) => Promise<WritePlan>) {
  const planned = await plan(await turnView(ctx));
  const unchainable = planned.items.some((i) => chainedOn(i.change) !== null && i.change.action !== "update");
  return unchainable ? plan(ctx.client) : planned;
}

/**
 * The calls written with an approved call: those of the turn its items rest on (a second edit of the same page) and
 * those resting on its items, when the owner approved them in this request and they still wait. Whichever of them
 * runs first writes them all, in plan order, in one batch; the others then answer the same.
 */
function callsToWrite(ctx: WriteContext, toolCallId: string, own: ChangeItem[], setItems: ChangeItem[]): Calls {
  const calls: Calls = new Map([[toolCallId, own]]);
  const byId = new Map(setItems.map((item) => [item.id, item]));
  const waiting = setItems.filter(
    (i) => i.status === "pending" && i.toolCallId && ctx.approvedToolCalls?.has(i.toolCallId),
  );
  const queue = [...own];
  for (let item = queue.shift(); item; item = queue.shift()) {
    const on = chainedOn(item.change);
    const linked = [...(on ? [byId.get(on)] : []), ...waiting.filter((i) => chainedOn(i.change) === item!.id)];
    for (const other of linked) {
      const call = other && waiting.includes(other) ? other.toolCallId! : null;
      if (!call || calls.has(call)) continue;
      const theirs = waiting.filter((i) => i.toolCallId === call);
      calls.set(call, theirs);
      queue.push(...theirs);
    }
  }
  return new Map([...calls].sort(([, a], [, b]) => a[0]!.seq - b[0]!.seq));
}

/** Closes approved plans whose write failed, and says why in words the model can pass on (always throws). */
async function failApprovedWrite(ctx: WriteContext, toolCallId: string, calls: Calls, error: unknown): Promise<never> {
  const items = [...calls.values()].flat();
  // A run the site refused (lib/changes/runs.ts) closed and audited its items; its cause is the site's answer.
  const refused = isRunRefusal(error);
  const cause = refused ? error.cause : error;
  let answer: unknown = error;
  if (isStaleItemsError(cause)) {
    const stale = items.filter((i) => cause.items.some((s) => s.ref === i.ref));
    for (const [call, theirs] of calls) await closeRefusedPlan(ctx, call, theirs, null);
    answer = new OperationError(
      `Not written: ${names(stale.length ? stale : items)} changed on the site after it was read (someone edited it meanwhile), so nothing was changed. Tell the owner; read it again and propose the change anew if it is still wanted.`,
      "sitewright_stale",
      { cause },
    );
  } else if (isFilteredItemsError(cause)) {
    for (const [call, theirs] of calls) await closeRefusedPlan(ctx, call, theirs, null);
    answer = filteredError(cause);
  } else if (!refused && isAppError(error) && error.code === "not_applicable") {
    // A change planned on top of an earlier one that will not be written (denied, or not approved): nothing written.
    for (const [call, theirs] of calls)
      await closeRefusedPlan(ctx, call, theirs, { outcome: "refused", detail: error.message });
    answer = new OperationError(
      `Not written: ${error.message} Tell the owner; read it again and propose the change anew if it is still wanted.`,
      "earlier_change_not_written",
      { cause: error },
    );
  } else if (isLeaseLostError(error)) {
    answer = new OperationError(
      "This approved change is being finished by another Sitewright instance; its result shows on the Changes page. Tell the owner.",
      "write_resumed",
      { cause: error },
    );
  } else {
    await closeAfterFailure(ctx, items, error);
  }
  settleOthersWith(ctx, toolCallId, calls, answer);
  throw answer;
}

/** What the model is told of an approved write: the items' summaries, the first item as the target. */
function approvedResult(items: ChangeItem[], changeSetId: string): OperationResult {
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
    {
      changeSetId,
      items: items.filter((i) => i.status === "applied").map((i) => ({ ref: i.ref, version: i.versionAfter })),
    },
  );
}

/** The card of a call whose approved items were written; it keeps showing what the call uploaded while it waited. */
async function showWritten(ctx: WriteContext, toolCallId: string, items: ChangeItem[]) {
  const uploaded = (await itemsOfToolCall({ ...ctx.scope, toolCallId })).filter(
    (i) => i.kind === "media" && i.action === "create" && !items.some((w) => w.id === i.id),
  );
  ctx.emitChange({
    toolCallId,
    changeSetId: items[0]!.changeSetId,
    status: "applied",
    items: [...uploaded.map(publicChangeItem), ...items.map(publicChangeItem)],
  });
}

/**
 * Writes exactly the plan the owner approved (stored when the approval was asked), over the versions it read. The
 * approved calls of a request run concurrently, so their writes go one at a time; a call whose items rest on an
 * earlier approved call of the turn writes that one's items first, in the same batch (lib/changes/chains.ts).
 */
export function writeApprovedPlan(ctx: WriteContext, toolCallId: string): Promise<OperationResult> {
  const write = (writingByContext.get(ctx) ?? Promise.resolve()).then(() => writeApprovedCall(ctx, toolCallId));
  writingByContext.set(
    ctx,
    write.catch(() => undefined),
  );
  return write;
}

/**
 * Claims the calls' items and writes them as one durable run (lib/changes/runs.ts: recorded before the write, finished
 * by the next instance if this process dies); returns them as recorded after it. A chain that cannot be written is
 * refused before anything is claimed.
 */
async function writeAsRun(ctx: WriteContext, items: ChangeItem[], setItems: ChangeItem[]): Promise<ChangeItem[]> {
  chainWrites(items, setItems);
  const changeSetId = items[0]!.changeSetId;
  try {
    // The items are claimed (`pending → writing`, all or none) in the same transaction that records the run.
    await approveCallAsRun({ userId: ctx.scope.userId, siteId: ctx.scope.siteId, changeSetId }, items, ctx.client);
  } catch (error) {
    if (isClaimTakenError(error))
      throw new OperationError("Not run: this approved change is being written already.", "approval_required");
    throw error;
  }
  const recorded = new Map((await itemsOfSet(changeSetId)).map((item) => [item.id, item]));
  return items.map((item) => recorded.get(item.id) ?? item);
}

async function writeApprovedCall(ctx: WriteContext, toolCallId: string): Promise<OperationResult> {
  const settled = settledOf(ctx).get(toolCallId);
  if (settled) return settled();
  const own = await pendingPlanFor({ ...ctx.scope, toolCallId });
  if (own.length === 0) {
    throw new OperationError("Not run: there is no approved change waiting for this call.", "approval_required");
  }
  const changeSetId = own[0]!.changeSetId;
  const setItems = await itemsOfSet(changeSetId);
  const calls = callsToWrite(ctx, toolCallId, own, setItems);
  let written: ChangeItem[];
  try {
    written = await writeAsRun(ctx, [...calls.values()].flat(), setItems);
  } catch (error) {
    if (error instanceof OperationError && error.code === "approval_required") throw error;
    return failApprovedWrite(ctx, toolCallId, calls, error);
  }
  const recorded = new Map(written.map((item) => [item.id, item]));
  let result: OperationResult | undefined;
  for (const [call, theirs] of calls) {
    const now = theirs.map((item) => recorded.get(item.id) ?? item);
    await showWritten(ctx, call, now);
    const answer = approvedResult(now, changeSetId);
    if (call === toolCallId) result = answer;
    else settledOf(ctx).set(call, () => answer);
  }
  const applied = written.filter((item) => item.status === "applied").map((i) => i.id);
  if (ctx.scope.target === "live" && applied.length > 0) ctx.afterLiveWrite?.({ changeSetId, itemIds: applied });
  return result!;
}
