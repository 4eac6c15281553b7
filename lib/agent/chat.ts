/**
 * `POST /chat`: everything is checked before the model is called, in the contract's order (the route wrapper has
 * already answered 401 and 400): 413 message too long → 503 no model → 404 site or conversation not the user's →
 * 409 site not active. Then the conversation gets this turn's input (a new message, or answers to approval
 * requests) and the turn streams.
 */
import { randomUUID } from "node:crypto";
import { createUIMessageStreamResponse, getToolName, isToolUIPart } from "ai";
import { now } from "@/lib/clock";
import { findConversation, findSiteForUser, insertConversation, listConversations, listMessages } from "@/lib/db/queries";
import type { Site } from "@/lib/db/schema";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { effectiveStatus } from "@/lib/sites/pairing";
import { siteClientFor } from "@/lib/sites/sites";
import type { SiteClient } from "@/lib/sites/types";
import { decideApproval } from "./approvals";
import { budgetFromEnv, type BudgetLimits } from "./budget";
import { agentModel, isAgentConfigured, type AgentModel } from "./model";
import { allowedOperations, configuredAllowlist, grantFromSiteInfo } from "./registry";
import { streamTurn, type ChatMessage } from "./run";

/** Chat messages over 8 KiB of text are refused (the contract's 413). */
export const MAX_MESSAGE_BYTES = 8 * 1024;

export type ApprovalAnswer = { id: string; approved: boolean; reason?: string };

export type ChatTurnRequest = {
  userId: string;
  siteId: string;
  conversationId?: string;
  message?: string;
  approvals?: ApprovalAnswer[];
  signal?: AbortSignal;
};

/** What a turn needs from the rest of the service; tests replace parts of it. */
export type ChatDeps = {
  model(): AgentModel | null;
  findSite(input: { userId: string; siteId: string }): Promise<Site | undefined>;
  siteClient(site: Site): SiteClient;
  limits(): BudgetLimits;
  allowlist(): string[];
};

export const defaultChatDeps: ChatDeps = {
  model: agentModel,
  findSite: findSiteForUser,
  siteClient: (site) => siteClientFor(site),
  limits: budgetFromEnv,
  allowlist: () => configuredAllowlist(),
};

let depsOverride: Partial<ChatDeps> | undefined;

/** Tests: replace some dependencies of the route (e.g. observe the site client); `undefined` restores them. */
export function setChatDepsForTests(overrides: Partial<ChatDeps> | undefined) {
  depsOverride = overrides;
}

const notFound = (what: string) => new AppError("not_found", `There is no such ${what} in your account.`, { status: 404 });

function toChatMessage(row: { id: string; role: string; parts: unknown[]; metadata: unknown }): ChatMessage {
  return { id: row.id, role: row.role as ChatMessage["role"], parts: row.parts as ChatMessage["parts"], metadata: (row.metadata ?? undefined) as ChatMessage["metadata"] };
}

/** Earlier tool results that tried to address the assistant keep the whole conversation on approval for writes. */
function flaggedInHistory(history: ChatMessage[]): string | undefined {
  for (const message of history) {
    for (const part of message.parts) {
      if (isToolUIPart(part) && part.state === "output-available") {
        const flagged = (part.output as { flagged?: unknown } | undefined)?.flagged;
        if (typeof flagged === "string") return flagged;
      }
    }
  }
  return undefined;
}

/** Approval requests left unanswered when the user moves on are closed as denied, so they cannot be used later. */
async function closeUnansweredApprovals(history: ChatMessage[], scope: { conversationId: string; userId: string }) {
  const last = history.at(-1);
  if (last?.role !== "assistant") return;
  for (const part of last.parts) {
    if (!isToolUIPart(part) || part.state !== "approval-requested") continue;
    await decideApproval(scope, { toolCallId: part.toolCallId, operation: getToolName(part), input: part.input }, false);
    Object.assign(part, {
      state: "output-denied",
      approval: { id: part.approval.id, approved: false, reason: "Not answered before the next message." },
    });
  }
}

/** Applies the user's answers to the pending approval requests of the last assistant message. */
async function applyApprovals(history: ChatMessage[], answers: ApprovalAnswer[], scope: { conversationId: string; userId: string }): Promise<Set<string>> {
  const last = history.at(-1);
  const approved = new Set<string>();
  for (const answer of answers) {
    const part = last?.role === "assistant"
      ? last.parts.find((p) => isToolUIPart(p) && p.state === "approval-requested" && p.approval.id === answer.id)
      : undefined;
    if (!part || !isToolUIPart(part) || part.state !== "approval-requested") {
      throw new AppError("approval_not_pending", "That approval request is not waiting for an answer any more. Reload the chat.", { status: 409 });
    }
    const decision = await decideApproval(scope, { toolCallId: part.toolCallId, operation: getToolName(part), input: part.input }, answer.approved);
    if (decision === "unknown") log.warn("approval answer without a matching request", { conversationId: scope.conversationId, toolCallId: part.toolCallId });
    const granted = decision === "approved";
    const reason = granted || decision === "denied"
      ? answer.reason
      : decision === "expired"
        ? "The approval came after the request expired; ask again if it is still wanted."
        : "No matching approval request was found.";
    Object.assign(part, { state: "approval-responded", approval: { ...part.approval, approved: granted, ...(reason ? { reason } : {}) } });
    if (granted) approved.add(part.toolCallId);
  }
  return approved;
}

export async function startChatTurn(request: ChatTurnRequest, deps: ChatDeps = { ...defaultChatDeps, ...depsOverride }): Promise<Response> {
  if (request.message !== undefined && Buffer.byteLength(request.message, "utf8") > MAX_MESSAGE_BYTES) {
    throw new AppError("payload_too_large", "Messages are limited to 8 KiB of text. Shorten it or split it in parts.", {
      status: 413,
      details: { maxBytes: MAX_MESSAGE_BYTES },
    });
  }
  const model = deps.model();
  if (!model) throw new AppError("agent_unavailable", "The assistant is not configured on this server.", { status: 503 });

  const site = await deps.findSite({ userId: request.userId, siteId: request.siteId });
  if (!site) throw notFound("site");
  const existing = request.conversationId
    ? await findConversation({ id: request.conversationId, userId: request.userId, siteId: site.id })
    : undefined;
  if (request.conversationId && !existing) throw notFound("conversation");
  if (effectiveStatus(site) !== "active") {
    throw new AppError("site_not_active", "This site is not connected yet. Finish pairing it before chatting.", { status: 409 });
  }
  const client = deps.siteClient(site);

  const history = existing ? (await listMessages({ conversationId: existing.id })).map(toChatMessage) : [];
  const scope = { conversationId: existing?.id ?? randomUUID(), userId: request.userId };
  let approvedToolCalls = new Set<string>();
  if (request.approvals?.length) {
    if (!existing) throw notFound("conversation");
    approvedToolCalls = await applyApprovals(history, request.approvals, scope);
  } else {
    const text = (request.message ?? "").trim();
    if (!existing) {
      await insertConversation({ id: scope.conversationId, userId: request.userId, siteId: site.id, title: text.slice(0, 80), now: now() });
    } else {
      await closeUnansweredApprovals(history, scope);
    }
    history.push({ id: randomUUID(), role: "user", parts: [{ type: "text", text }] });
  }

  const { operations } = allowedOperations(grantFromSiteInfo(site.siteInfo, site.capabilities), deps.allowlist());
  const stream = streamTurn({
    userId: request.userId,
    site: { id: site.id, url: site.url, name: site.name, pageBuilder: site.pageBuilder },
    conversationId: scope.conversationId,
    history,
    operations,
    client,
    model,
    limits: deps.limits(),
    approvedToolCalls,
    flagged: flaggedInHistory(history),
    signal: request.signal,
  });
  return createUIMessageStreamResponse({ stream, headers: { "Cache-Control": "no-store", "X-Conversation-Id": scope.conversationId } });
}

export type ChatPageData = {
  site: { id: string; url: string; name: string | null; active: boolean };
  conversationId?: string;
  messages: ChatMessage[];
  agentConfigured: boolean;
};

/** What the chat page shows: the site, its latest conversation with the user, and whether the agent is on. */
export async function loadChatPage({ userId, siteId }: { userId: string; siteId: string }): Promise<ChatPageData | undefined> {
  const site = await findSiteForUser({ userId, siteId });
  if (!site) return undefined;
  const [latest] = await listConversations({ userId, siteId: site.id, limit: 1 });
  const messages = latest ? (await listMessages({ conversationId: latest.id })).map(toChatMessage) : [];
  return {
    site: { id: site.id, url: site.url, name: site.name, active: effectiveStatus(site) === "active" },
    conversationId: latest?.id,
    messages,
    agentConfigured: isAgentConfigured(),
  };
}
