/**
 * Approvals: the owner's click for destructive operations and for every live write visitors would see (the plan
 * decides, lib/agent/writes.ts). The AI SDK's tool approval drives the chat; this module binds each approval to the user, the conversation, the
 * tool call, the operation and the exact arguments, with an expiry, and lets it be used once.
 */
import { createHash, randomUUID } from "node:crypto";
import { now } from "@/lib/clock";
import { consumeApproval, decideApprovalRequest, findApprovalRequest, insertApprovalRequest } from "@/lib/db/queries";
import { canonicalJson } from "@/lib/canonical-json";

/** How long the user has to answer an approval request (and the approved call to run). */
export const APPROVAL_TTL_MS = 10 * 60 * 1000;

export function hashArguments(operation: string, input: unknown): string {
  return createHash("sha256")
    .update(`${operation}\n${canonicalJson(input)}`)
    .digest("hex");
}

export type ApprovalScope = { conversationId: string; userId: string; siteId: string };

export async function requestApproval(
  scope: ApprovalScope,
  call: { toolCallId: string; operation: string; input: unknown },
) {
  const requestedAt = now();
  await insertApprovalRequest({
    id: randomUUID(),
    ...scope,
    toolCallId: call.toolCallId,
    operation: call.operation,
    inputHash: hashArguments(call.operation, call.input),
    input: call.input,
    requestedAt,
    expiresAt: new Date(requestedAt.getTime() + APPROVAL_TTL_MS),
  });
}

export type Decision = "approved" | "denied" | "expired" | "unknown";

/** Records the user's answer for a pending tool call; "expired" when it came too late, "unknown" when nothing waits. */
export async function decideApproval(
  scope: Omit<ApprovalScope, "siteId">,
  call: { toolCallId: string; operation: string; input: unknown },
  approved: boolean,
): Promise<Decision> {
  const row = await findApprovalRequest({
    conversationId: scope.conversationId,
    userId: scope.userId,
    toolCallId: call.toolCallId,
    inputHash: hashArguments(call.operation, call.input),
  });
  if (!row || row.operation !== call.operation) return "unknown";
  const status = await decideApprovalRequest({ id: row.id, userId: scope.userId, approved, now: now() });
  if (status === "approved" || status === "denied" || status === "expired") return status;
  return "unknown";
}

/** True once, for an approved and unexpired request matching this exact call. */
export async function spendApproval(
  scope: Omit<ApprovalScope, "siteId">,
  call: { toolCallId: string; operation: string; input: unknown },
): Promise<boolean> {
  return consumeApproval({
    conversationId: scope.conversationId,
    userId: scope.userId,
    toolCallId: call.toolCallId,
    operation: call.operation,
    inputHash: hashArguments(call.operation, call.input),
    now: now(),
  });
}
