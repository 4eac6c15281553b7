/**
 * The chat's door: turns the allowed operations into AI SDK tools for one run. Every call goes through the same
 * gate, in order: budget → approval (the owner's click rule, decided by the one use case on the write's plan and
 * where the site says visitors would see it: lib/agent/call-operation.ts) → the site's circuit breaker → an audit
 * row → the operation.
 * Expected failures come back to the model as `{ error }`. The phrase scanner only warns. A call the site refuses
 * with 403, and a locked tool (an operation whose scope the owner has not granted), re-read what the token may do
 * once per run: granted meanwhile, the call goes on; otherwise the model gets exactly how the owner grants it in
 * WordPress (lib/sites/permissions.ts).
 */
import { tool, type ToolSet } from "ai";
import { publicChangeItem } from "@/lib/changes/change-sets";
import { now } from "@/lib/clock";
import { touchSiteLastSeen } from "@/lib/db/queries";
import { log } from "@/lib/log";
import { isStaleItemsError } from "@/lib/sites/items";
import { isSiteRequestError } from "@/lib/sites/client";
import { scopeRefusal } from "@/lib/sites/permissions";
import type { SiteClient } from "@/lib/sites/types";
import { requestApproval, spendApproval } from "./approvals";
import { CircuitOpenError, type CircuitBreaker } from "./breaker";
import {
  type Actor,
  auditRefusedCall,
  type CallAudit,
  needsClick,
  type Pending,
  planCall,
  startCallAudit,
  writeUnseenOrHold,
} from "./call-operation";
import type { RunBudget } from "./budget";
import { OperationError, sdkInputSchema, type Operation, type OperationResult } from "./operations";
import { toolDescription } from "./tool-definitions";
import { planContext } from "./media";
import { findInjection, wrapForModel } from "./untrusted";
import { toolResultForModel } from "./vision";
import { holdPlanForApproval, type PlanOutcome, planInTurn, writeApprovedPlan, type WriteContext } from "./writes";

export type ToolSuccess = OperationResult & { ok: true; flagged?: string };
export type ToolFailure = { ok: false; error: string; code: string };
export type ToolOutput = ToolSuccess | ToolFailure;

/** One line per tool call of this run, for the closing summary when a run is cut short. */
export type ToolOutcome = { operation: string; risk: Operation["risk"]; ok: boolean; summary: string };

export type RunState = {
  /** Site content tried to address the assistant (here or earlier in the conversation): a warning, never a grant. */
  flagged?: string;
  /** Tool calls the user approved in this request (continuations only). */
  approvedToolCalls: ReadonlySet<string>;
  outcomes: ToolOutcome[];
  /** The live site answered in this run, and its last-seen time was written (once per run). */
  siteSeen?: boolean;
  /** The operations allowed after re-reading the token's scopes (at most once per run). */
  regranted?: Promise<readonly string[] | null>;
};

export type ToolContext = {
  userId: string;
  siteId: string;
  conversationId: string;
  client: SiteClient;
  breaker: CircuitBreaker;
  budget: RunBudget;
  state: RunState;
  /** The turn's change set scope and plans (writes). */
  writes: WriteContext;
  /** Starts a bulk job (absent where jobs cannot run): the operation's input is its spec. */
  startJob?: (spec: unknown) => Promise<{ summary: string; data: unknown }>;
  /**
   * Reads what the site's token may do again (its `/info`) and returns the names of the operations now allowed.
   * Called at most once per run (after a scope refusal, or for a locked tool); absent = nothing to re-read.
   */
  regrant?: () => Promise<readonly string[]>;
};

/**
 * Whether the site's token allows this operation now, re-reading its scopes once per run; `undefined` when they
 * could not be read (nothing to re-read, or the site did not answer).
 */
async function allowedNow(ctx: ToolContext, op: Operation): Promise<boolean | undefined> {
  if (!ctx.regrant) return undefined;
  ctx.state.regranted ??= ctx.regrant().catch((error: unknown) => {
    log.warn("could not read the site's permissions again", { error, siteId: ctx.siteId });
    return null;
  });
  return (await ctx.state.regranted)?.includes(op.name);
}

/**
 * A 403 from the site: the plugin's `sitewright_scope` (the token lacks the scope; nothing was done), or core
 * refusing a capability the token's scopes no longer lend.
 */
function forbidden(error: unknown): "scope" | "other" | undefined {
  const cause = error instanceof OperationError && error.cause ? error.cause : error;
  if (!isSiteRequestError(cause) || cause.siteStatus !== 403) return undefined;
  return cause.siteCode === "sitewright_scope" ? "scope" : "other";
}

/** The dashboard's "last seen" for a live site: written once per run, when the site first answers. */
async function noteSiteSeen(ctx: ToolContext) {
  if (ctx.state.siteSeen || ctx.writes.scope.target !== "live") return;
  ctx.state.siteSeen = true;
  await touchSiteLastSeen({ id: ctx.siteId, now: now() }).catch((error) =>
    log.warn("could not record when the site was last seen", { error, siteId: ctx.siteId }),
  );
}

const failure = (code: string, error: string): ToolFailure => ({ ok: false, error, code });

/** A site that answered (even with 403 or 404) is up; only unreachable sites, bad responses and 5xx trip the breaker. */
function siteIsFailing(error: unknown): boolean {
  const cause = error instanceof OperationError && error.cause ? error.cause : error;
  if (!isSiteRequestError(cause)) return false;
  return cause.kind !== "rejected" || (cause.siteStatus ?? 0) >= 500;
}

function describeFailure(error: unknown): ToolFailure {
  if (error instanceof OperationError) return failure(error.code, error.message);
  if (isSiteRequestError(error)) {
    const detail = error.siteCode ? ` (${error.siteCode})` : "";
    return failure(error.kind === "rejected" ? "site_rejected" : "site_unreachable", `${error.message}${detail}`);
  }
  return failure("internal_error", "The operation failed because of an error in Sitewright; it may not have run.");
}

const chatActor = (ctx: ToolContext): Actor => ({ userId: ctx.userId, door: "chat" });

function audit(
  ctx: ToolContext,
  row: {
    toolCallId: string;
    op: Operation | { name: string; risk?: string };
    input: unknown;
    status: "refused" | "invalid";
    error: string;
  },
) {
  return auditRefusedCall({
    actor: chatActor(ctx),
    conversationId: ctx.conversationId,
    siteId: ctx.siteId,
    callId: row.toolCallId,
    op: row.op,
    input: row.input,
    status: row.status,
    error: row.error,
  });
}

/** Records a refusal (never reached the site) in the audit log and the run's outcomes, and returns it for the model. */
async function refuse(
  ctx: ToolContext,
  op: Operation,
  toolCallId: string,
  input: unknown,
  result: ToolFailure,
): Promise<ToolFailure> {
  log.warn("agent tool call refused", {
    operation: op.name,
    code: result.code,
    siteId: ctx.siteId,
    conversationId: ctx.conversationId,
  });
  ctx.state.outcomes.push({ operation: op.name, risk: op.risk, ok: false, summary: result.error });
  await audit(ctx, { toolCallId, op, input, status: "refused", error: `${result.code}: ${result.error}` });
  return result;
}

/**
 * Whether this call runs on an approval: a call the owner approved in this request, or an operation that always
 * needs one and has no plan to decide on.
 */
export function needsApproval(op: Operation, state: RunState, toolCallId: string): boolean {
  if (op.risk === "read") return false;
  if (state.approvedToolCalls.has(toolCallId)) return true;
  return op.risk === "destructive" && !op.plan;
}

/**
 * The chat's plan of a call, made once per request (the approval check makes it, execute reuses it). The SDK asks
 * for approvals one call at a time, in order, so a call sees the pending items of the calls before it.
 */
function chatPlan(ctx: WriteContext, op: Operation, input: unknown, toolCallId: string): Promise<PlanOutcome> {
  let outcome = ctx.plans.get(toolCallId);
  if (!outcome) {
    // Planned against the state the turn's pending items leave: a second edit of one page rests on the first.
    outcome = planInTurn(ctx, (client) =>
      planCall(client, op, input, { target: ctx.scope.target, context: planContext(ctx, toolCallId) }),
    ).then(
      (plan): PlanOutcome => ({ ok: true, plan }),
      (error: unknown): PlanOutcome => ({ ok: false, error }),
    );
    ctx.plans.set(toolCallId, outcome);
  }
  return outcome;
}

/** A plan that became visible between its plan and its write waits on the review page: the card and the model say so. */
function heldAtWrite(ctx: ToolContext, toolCallId: string, held: Pending): OperationResult {
  ctx.writes.emitChange({
    toolCallId,
    changeSetId: held.changeSetId,
    status: "pending",
    items: held.items.map(publicChangeItem),
  });
  return {
    summary: `Not written yet: visitors would now see this change, so it waits for the owner's approval at ${held.reviewUrl}. ${held.summary}`,
    data: { status: "pending", changeSetId: held.changeSetId, reviewUrl: held.reviewUrl },
  };
}

/** The operation itself: reads and plan-less writes run; planned writes go through the write path. */
async function perform(ctx: ToolContext, op: Operation, input: unknown, toolCallId: string): Promise<OperationResult> {
  if (op.startsJob) {
    if (!ctx.startJob) throw new OperationError("Bulk jobs cannot be started from here.", "job_unavailable");
    return ctx.startJob(input);
  }
  if (!op.plan) return op.run!(ctx.client, input);
  if (ctx.state.approvedToolCalls.has(toolCallId)) return writeApprovedPlan(ctx.writes, toolCallId);
  const outcome = await chatPlan(ctx.writes, op, input, toolCallId);
  if (!outcome.ok) throw outcome.error;
  let plan = outcome.plan;
  for (let attempt = 1; ; attempt++) {
    if (needsClick(op, ctx.writes.scope.target, plan.items)) {
      throw new OperationError(
        "Not run: visitors would see this change, so it needs the owner's approval in the chat.",
        "approval_required",
      );
    }
    try {
      const written = await writeUnseenOrHold(chatActor(ctx), ctx.writes, toolCallId, plan);
      return written.status === "pending" ? heldAtWrite(ctx, toolCallId, written) : written.result;
    } catch (error) {
      if (!isStaleItemsError(error)) throw error;
      // No click is involved: plan again on what the site holds now (e.g. this turn's other call on the same
      // draft landed first), a few times; a page that keeps changing is reported, never overwritten.
      if (attempt >= MAX_PLAN_ATTEMPTS) {
        throw new OperationError(
          "Not written: the item kept changing on the site while Sitewright was writing it, so nothing was changed. Read it again.",
          "sitewright_stale",
          { cause: error },
        );
      }
      plan = await planCall(ctx.client, op, input, {
        target: ctx.writes.scope.target,
        context: planContext(ctx.writes, toolCallId),
      });
    }
  }
}

/**
 * The owner may have narrowed or widened the token since the run began. On a 403 the scopes are read again: not
 * allowed now, the model is told exactly how the owner grants it; allowed now after the plugin's scope refusal
 * (nothing was done), the call is tried once more (not an approved plan: that was written for one attempt).
 */
async function performWithScopeCheck(ctx: ToolContext, op: Operation, input: unknown, toolCallId: string) {
  try {
    return await perform(ctx, op, input, toolCallId);
  } catch (error) {
    const refused = forbidden(error);
    const allowed = refused ? await allowedNow(ctx, op) : undefined;
    if (allowed === undefined) throw error;
    if (!allowed) {
      throw new OperationError(scopeRefusal(op.scope), "scope_not_granted", { cause: error });
    }
    if (refused === "other" || ctx.state.approvedToolCalls.has(toolCallId)) throw error;
    return perform(ctx, op, input, toolCallId);
  }
}

/** Plans of writes that need no click are made again after a stale answer at most this many times in all. */
const MAX_PLAN_ATTEMPTS = 3;

type Permit = ReturnType<CircuitBreaker["acquire"]>;

/** The gate before a call, in order: budget, approval, the site's circuit breaker. A refusal never reaches the site. */
async function admit(
  ctx: ToolContext,
  op: Operation,
  input: unknown,
  toolCallId: string,
): Promise<{ ok: true; permit: Permit } | ToolFailure> {
  if (!ctx.budget.takeToolCall()) {
    return refuse(ctx, op, toolCallId, input, failure("budget_exhausted", `Not run: ${ctx.budget.describe()}.`));
  }
  if (needsApproval(op, ctx.state, toolCallId)) {
    const approved = await spendApproval(ctx, { toolCallId, operation: op.name, input });
    if (!approved) {
      return refuse(
        ctx,
        op,
        toolCallId,
        input,
        failure(
          "approval_required",
          "Not run: this needs the user's approval in the chat, and there is no unexpired approval for exactly these arguments.",
        ),
      );
    }
  }
  try {
    return { ok: true, permit: ctx.breaker.acquire() };
  } catch (error) {
    if (!(error instanceof CircuitOpenError)) throw error;
    return refuse(
      ctx,
      op,
      toolCallId,
      input,
      failure("site_paused", `Not run: the site failed repeatedly, so calls to it are paused. ${error.message}`),
    );
  }
}

/** Writes the "started" audit row before the site is touched: after a crash, it says the call may have happened. */
const auditStart = (ctx: ToolContext, op: Operation, input: unknown, toolCallId: string) =>
  startCallAudit({
    actor: chatActor(ctx),
    conversationId: ctx.conversationId,
    siteId: ctx.siteId,
    callId: toolCallId,
    op,
    input,
  });

/** Runs the operation, tells the breaker how the site did, and flags site content that addresses the assistant. */
async function run(ctx: ToolContext, op: Operation, input: unknown, toolCallId: string, permit: Permit) {
  try {
    const result = await performWithScopeCheck(ctx, op, input, toolCallId);
    permit.succeed();
    await noteSiteSeen(ctx);
    const output: ToolSuccess = { ok: true, ...result };
    const flagged = findInjection({
      target: result.target,
      before: result.before,
      after: result.after,
      data: result.data,
    });
    if (flagged) {
      output.flagged = flagged;
      ctx.state.flagged ??= flagged;
      log.warn("site content addresses the assistant; the model and the owner are warned", {
        operation: op.name,
        siteId: ctx.siteId,
        phrase: flagged,
      });
    }
    return output;
  } catch (error) {
    if (siteIsFailing(error)) permit.fail(error instanceof Error ? error.message : String(error));
    else permit.succeed();
    const output = describeFailure(error);
    if (output.code === "internal_error")
      log.error("agent operation failed unexpectedly", { error, operation: op.name });
    return output;
  }
}

/** Records the call's outcome for the run's summary and finishes its audit row. */
async function auditFinish(ctx: ToolContext, op: Operation, started: CallAudit, output: ToolOutput) {
  const summary = output.ok ? output.summary : output.error;
  ctx.state.outcomes.push({ operation: op.name, risk: op.risk, ok: output.ok, summary });
  await started.finish(
    output.ok ? { ok: true, summary: output.summary } : { ok: false, error: `${output.code}: ${output.error}` },
  );
}

export async function executeOperation(
  ctx: ToolContext,
  op: Operation,
  input: unknown,
  toolCallId: string,
): Promise<ToolOutput> {
  const admitted = await admit(ctx, op, input, toolCallId);
  if (!admitted.ok) return admitted;
  const started = await auditStart(ctx, op, input, toolCallId);
  if (!started) {
    admitted.permit.cancel();
    return failure(
      "audit_unavailable",
      "Not run: Sitewright could not record the action, so it did not touch the site.",
    );
  }
  const output = await run(ctx, op, input, toolCallId, admitted.permit);
  await auditFinish(ctx, op, started, output);
  return output;
}

/** Records an invalid tool call the model made (unknown tool, bad arguments): it never reached the site. */
export async function auditInvalidCall(
  ctx: ToolContext,
  call: { toolCallId: string; toolName: string; input: unknown; error: string },
) {
  log.warn("agent made an invalid tool call", {
    tool: call.toolName,
    siteId: ctx.siteId,
    conversationId: ctx.conversationId,
  });
  ctx.state.outcomes.push({
    operation: call.toolName,
    risk: "read",
    ok: false,
    summary: `invalid call: ${call.error}`,
  });
  await audit(ctx, {
    toolCallId: call.toolCallId,
    op: { name: call.toolName.slice(0, 200) },
    input: call.input,
    status: "invalid",
    error: call.error.slice(0, 1000),
  });
}

/** The owner's click rule for one call (lib/agent/call-operation.ts): whether it waits for an Approve in the chat. */
async function approvalGate(ctx: ToolContext, op: Operation, input: unknown, toolCallId: string): Promise<boolean> {
  if (op.risk === "read") return false;
  // Continuing after the owner's answer: the approved plan is already stored; execute writes exactly it.
  if (ctx.state.approvedToolCalls.has(toolCallId)) return true;
  if (op.plan) {
    // The plan decides: a failed plan runs (and reports its error), a visible one waits with its diff and places.
    const outcome = await chatPlan(ctx.writes, op, input, toolCallId);
    if (!outcome.ok || !needsClick(op, ctx.writes.scope.target, outcome.plan.items)) return false;
    await holdPlanForApproval(ctx.writes, toolCallId, outcome.plan);
  } else if (!needsApproval(op, ctx.state, toolCallId)) {
    return false;
  }
  await requestApproval(ctx, { toolCallId, operation: op.name, input });
  return true;
}

/** Told to the model in the tool's description: calling a locked tool changes nothing until the owner grants it. */
const LOCKED_NOTE =
  "(Not granted on this site yet: calling it changes nothing and returns how the owner grants it in WordPress; tell the owner that, word for word.)";

/**
 * Tools for the allowed operations, plus `locked` ones: operations whose scope the token lacks. A locked tool
 * re-reads the token's scopes once per run; granted meanwhile, it behaves as the operation; otherwise it never
 * asks for approval and answers with exactly how the owner grants the scope.
 */
export function buildTools(
  operations: readonly Operation[],
  ctx: ToolContext,
  locked: readonly Operation[] = [],
): ToolSet {
  const tools: ToolSet = {};
  for (const op of operations) {
    tools[op.name] = tool({
      description: toolDescription(op),
      inputSchema: sdkInputSchema(op),
      needsApproval: (input: unknown, { toolCallId }: { toolCallId: string }) =>
        approvalGate(ctx, op, input, toolCallId),
      execute: (input: unknown, { toolCallId }: { toolCallId: string }) => executeOperation(ctx, op, input, toolCallId),
      toModelOutput: ({ output }: { output: unknown }) => toolResultForModel(output, wrapForModel(output)),
    });
  }
  for (const op of locked) {
    if (tools[op.name]) continue;
    tools[op.name] = tool({
      description: `${toolDescription(op)} ${LOCKED_NOTE}`,
      inputSchema: sdkInputSchema(op),
      needsApproval: async (input: unknown, { toolCallId }: { toolCallId: string }) =>
        (await allowedNow(ctx, op)) === true && approvalGate(ctx, op, input, toolCallId),
      execute: async (input: unknown, { toolCallId }: { toolCallId: string }) =>
        (await allowedNow(ctx, op)) === true
          ? executeOperation(ctx, op, input, toolCallId)
          : refuse(ctx, op, toolCallId, input, failure("scope_not_granted", scopeRefusal(op.scope))),
      toModelOutput: ({ output }: { output: unknown }) => toolResultForModel(output, wrapForModel(output)),
    });
  }
  return tools;
}
