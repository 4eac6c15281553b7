/**
 * Approvals for destructive operations (and for writes once site content tried to steer the assistant). The
 * AI SDK's tool approval drives the chat; this module binds each approval to the user, the conversation, the
 * tool call, the operation and the exact arguments, with an expiry, and lets it be used once.
 */
import { createHash, randomUUID } from "node:crypto";
import { now } from "@/lib/clock";
import { consumeApproval, decideApprovalRequest, findApprovalRequest, insertApprovalRequest } from "@/lib/db/queries";

/** How long the user has to answer an approval request (and the approved call to run). */
export const APPROVAL_TTL_MS = 10 * 60 * 1000;

/** JSON with object keys sorted, so equal arguments always hash the same. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
}

export function hashArguments(operation: string, input: unknown): string {
  return createHash("sha256").update(`${operation}\n${canonicalJson(input)}`).digest("hex");
}

export type ApprovalScope = { conversationId: string; userId: string; siteId: string };

export async function requestApproval(scope: ApprovalScope, call: { toolCallId: string; operation: string; input: unknown }) {
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
export async function useApproval(scope: Omit<ApprovalScope, "siteId">, call: { toolCallId: string; operation: string; input: unknown }): Promise<boolean> {
  return consumeApproval({
    conversationId: scope.conversationId,
    userId: scope.userId,
    toolCallId: call.toolCallId,
    operation: call.operation,
    inputHash: hashArguments(call.operation, call.input),
    now: now(),
  });
}
