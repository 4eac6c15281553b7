/**
 * Turns the allowed operations into AI SDK tools for one run. Every call goes through the same gate, in order:
 * budget → approval (destructive, or any write once site content tried to steer the assistant) → the site's
 * circuit breaker → an audit row → the operation. Expected failures come back to the model as `{ error }`.
 */
import { randomUUID } from "node:crypto";
import { tool, type ToolSet } from "ai";
import { now } from "@/lib/clock";
import { finishToolAudit, insertToolAudit } from "@/lib/db/queries";
import { log } from "@/lib/log";
import { isSiteRequestError } from "@/lib/sites/client";
import type { SiteClient } from "@/lib/sites/types";
import { requestApproval, useApproval } from "./approvals";
import { CircuitOpenError, type CircuitBreaker } from "./breaker";
import type { RunBudget } from "./budget";
import { OperationError, sdkInputSchema, type Operation, type OperationResult } from "./operations";
import { findInjection, wrapForModel } from "./untrusted";

export type ToolSuccess = OperationResult & { ok: true; flagged?: string };
export type ToolFailure = { ok: false; error: string; code: string };
export type ToolOutput = ToolSuccess | ToolFailure;

/** One line per tool call of this run, for the closing summary when a run is cut short. */
export type ToolOutcome = { operation: string; risk: Operation["risk"]; ok: boolean; summary: string };

export type RunState = {
  /** Site content tried to address the assistant (here or earlier in the conversation): writes need approval. */
  flagged?: string;
  /** Tool calls the user approved in this request (continuations only). */
  approvedToolCalls: ReadonlySet<string>;
  outcomes: ToolOutcome[];
};

export type ToolContext = {
  userId: string;
  siteId: string;
  conversationId: string;
  client: SiteClient;
  breaker: CircuitBreaker;
  budget: RunBudget;
  state: RunState;
};

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

async function audit(ctx: ToolContext, row: { toolCallId: string; op: Operation | { name: string; risk?: string }; input: unknown; status: "refused" | "invalid"; error: string }) {
  const at = now();
  try {
    await insertToolAudit({
      id: randomUUID(),
      conversationId: ctx.conversationId,
      userId: ctx.userId,
      siteId: ctx.siteId,
      toolCallId: row.toolCallId,
      operation: row.op.name,
      risk: row.op.risk ?? null,
      input: row.input,
      status: row.status,
      error: row.error,
      startedAt: at,
      finishedAt: at,
      durationMs: 0,
    });
  } catch (error) {
    log.error("could not write the tool audit row", { error, operation: row.op.name, status: row.status });
  }
}

/** Records a refusal (never reached the site) in the audit log and the run's outcomes, and returns it for the model. */
async function refuse(ctx: ToolContext, op: Operation, toolCallId: string, input: unknown, result: ToolFailure): Promise<ToolFailure> {
  log.warn("agent tool call refused", { operation: op.name, code: result.code, siteId: ctx.siteId, conversationId: ctx.conversationId });
  ctx.state.outcomes.push({ operation: op.name, risk: op.risk, ok: false, summary: result.error });
  await audit(ctx, { toolCallId, op, input, status: "refused", error: `${result.code}: ${result.error}` });
  return result;
}

/** Writes need approval once flagged; destructive operations always do. */
export function needsApproval(op: Operation, state: RunState, toolCallId: string): boolean {
  if (op.risk === "destructive") return true;
  if (op.risk === "read") return false;
  return Boolean(state.flagged) || state.approvedToolCalls.has(toolCallId);
}

export async function executeOperation(ctx: ToolContext, op: Operation, input: unknown, toolCallId: string): Promise<ToolOutput> {
  if (!ctx.budget.takeToolCall()) {
    return refuse(ctx, op, toolCallId, input, failure("budget_exhausted", `Not run: ${ctx.budget.describe()}.`));
  }
  if (needsApproval(op, ctx.state, toolCallId)) {
    const approved = await useApproval(ctx, { toolCallId, operation: op.name, input });
    if (!approved) {
      return refuse(
        ctx,
        op,
        toolCallId,
        input,
        failure("approval_required", "Not run: this needs the user's approval in the chat, and there is no unexpired approval for exactly these arguments."),
      );
    }
  }
  let permit;
  try {
    permit = ctx.breaker.acquire();
  } catch (error) {
    if (error instanceof CircuitOpenError) {
      return refuse(ctx, op, toolCallId, input, failure("site_paused", `Not run: the site failed repeatedly, so calls to it are paused. ${error.message}`));
    }
    throw error;
  }

  const auditId = randomUUID();
  const startedAt = now();
  try {
    // Written before the site is touched: after a crash, a "started" row says the call may have happened.
    await insertToolAudit({
      id: auditId,
      conversationId: ctx.conversationId,
      userId: ctx.userId,
      siteId: ctx.siteId,
      toolCallId,
      operation: op.name,
      risk: op.risk,
      input,
      status: "started",
      startedAt,
    });
  } catch (error) {
    permit.cancel();
    log.error("could not write the tool audit row; not calling the site", { error, operation: op.name });
    return failure("audit_unavailable", "Not run: Sitewright could not record the action, so it did not touch the site.");
  }

  let output: ToolOutput;
  try {
    const result = await op.run(ctx.client, input);
    permit.succeed();
    output = { ok: true, ...result };
    const flagged = findInjection({ target: result.target, before: result.before, after: result.after, data: result.data });
    if (flagged) {
      output.flagged = flagged;
      ctx.state.flagged ??= flagged;
      log.warn("site content addresses the assistant; writes now need approval", { operation: op.name, siteId: ctx.siteId, phrase: flagged });
    }
  } catch (error) {
    if (siteIsFailing(error)) permit.fail(error instanceof Error ? error.message : String(error));
    else permit.succeed();
    output = describeFailure(error);
    if (output.code === "internal_error") log.error("agent operation failed unexpectedly", { error, operation: op.name });
  }

  const finishedAt = now();
  const summary = output.ok ? output.summary : output.error;
  ctx.state.outcomes.push({ operation: op.name, risk: op.risk, ok: output.ok, summary });
  try {
    await finishToolAudit({
      id: auditId,
      status: output.ok ? "ok" : "error",
      resultSummary: output.ok ? output.summary : null,
      error: output.ok ? null : `${output.code}: ${output.error}`,
      finishedAt,
      durationMs: finishedAt.getTime() - startedAt.getTime(),
    });
  } catch (error) {
    log.error("could not finish the tool audit row", { error, operation: op.name, auditId });
  }
  return output;
}

/** Records an invalid tool call the model made (unknown tool, bad arguments): it never reached the site. */
export async function auditInvalidCall(ctx: ToolContext, call: { toolCallId: string; toolName: string; input: unknown; error: string }) {
  log.warn("agent made an invalid tool call", { tool: call.toolName, siteId: ctx.siteId, conversationId: ctx.conversationId });
  ctx.state.outcomes.push({ operation: call.toolName, risk: "read", ok: false, summary: `invalid call: ${call.error}` });
  await audit(ctx, { toolCallId: call.toolCallId, op: { name: call.toolName.slice(0, 200) }, input: call.input, status: "invalid", error: call.error.slice(0, 1000) });
}

export function buildTools(operations: readonly Operation[], ctx: ToolContext): ToolSet {
  const tools: ToolSet = {};
  for (const op of operations) {
    tools[op.name] = tool({
      description: op.risk === "destructive" ? `${op.description} (Needs the user's approval.)` : op.description,
      inputSchema: sdkInputSchema(op),
      needsApproval: async (input: unknown, { toolCallId }: { toolCallId: string }) => {
        if (!needsApproval(op, ctx.state, toolCallId)) return false;
        await requestApproval(ctx, { toolCallId, operation: op.name, input });
        return true;
      },
      execute: (input: unknown, { toolCallId }: { toolCallId: string }) => executeOperation(ctx, op, input, toolCallId),
      toModelOutput: ({ output }: { output: unknown }) => ({ type: "json", value: wrapForModel(output) as never }),
    });
  }
  return tools;
}
