/**
 * `POST /chat`: everything is checked before the model is called, in the contract's order (the route wrapper has
 * already answered 401 and 400): 413 message too long → 503 no model → 404 site or conversation not the user's →
 * 409 site not active. Then the conversation gets this turn's input (a new message, or answers to approval
 * requests) and the turn streams.
 */
import { randomUUID } from "node:crypto";
import { createUIMessageStreamResponse, getToolName, isToolUIPart } from "ai";
import { now } from "@/lib/clock";
import {
  findConversationForSiteUrl,
  findLatestLiveChangeSet,
  findSiteForUser,
  findSiteWithRole,
  findSiteOrItsRepairForUser,
  insertConversation,
  listConversationsForSiteUrl,
  listMessages,
} from "@/lib/db/queries";
import type { Site } from "@/lib/db/schema";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { effectiveStatus } from "@/lib/sites/site-view";
import { refreshSiteInfo, refreshWhenStale, siteClientFor } from "@/lib/sites/sites";
import { describePermissions, grantedScopes, type Permissions } from "@/lib/sites/permissions";
import type { SiteClient } from "@/lib/sites/types";
import { recordApprovalDecision } from "@/lib/changes/change-sets";
import { getSandboxManager } from "@/lib/sandbox";
import { sandboxConfig } from "@/lib/sandbox/config";
import { startBulkJob } from "./bulk-job";
import type { JobSpec } from "@/lib/jobs/spec";
import { scheduleVerification } from "@/lib/workflows/verify-change-set";
import { takeBackDeniedUploads } from "./denied-uploads";
import type { NotVisible } from "@/lib/agent/prompt";
import { decideApproval } from "@/lib/agent/approvals";
import { siteBreaker } from "@/lib/agent/breaker";
import { MAX_MESSAGE_BYTES } from "@/lib/agent/chat-constants";
import { budgetFromEnv, type BudgetLimits } from "@/lib/agent/budget";
import { agentModel, isAgentConfigured, type AgentModel } from "@/lib/agent/model";
import { allowedOperations, configuredAllowlist, grantFromSiteInfo, lockedOperations } from "@/lib/agent/registry";
import { ALL_OPERATIONS } from "@/lib/agent/operations";
import { streamTurn, type ChatMessage } from "@/lib/agent/run";
import { attachedUploads } from "@/lib/media/uploads";

export type ApprovalAnswer = { id: string; approved: boolean; reason?: string };

export type ChatTurnRequest = {
  userId: string;
  siteId: string;
  conversationId?: string;
  message?: string;
  /** Files the owner attached to the message (upload ids). */
  uploads?: string[];
  approvals?: ApprovalAnswer[];
  /** `sandbox` (default when sandboxes are on): the turn works in the conversation's sandbox copy of the site. */
  mode?: ChatMode;
  signal?: AbortSignal;
};

export type ChatMode = "live" | "sandbox";

/** The conversation's sandbox copy of the site, made or refreshed as needed (lib/sandbox/rehearsal.ts). */
export type RehearsalSource = (input: {
  userId: string;
  siteId: string;
  conversationId: string;
  live: SiteClient;
}) => Promise<{ sandboxId: string; client: SiteClient; replaced?: "vanished" }>;

/** What a turn needs from the rest of the service; tests replace parts of it. */
export type ChatDeps = {
  model(): AgentModel | null;
  findSite(input: { userId: string; siteId: string }): Promise<Site | undefined>;
  siteClient(site: Site): SiteClient;
  limits(): BudgetLimits;
  allowlist(): string[];
  /** Whether sandboxes are on (then sandbox mode is the default). */
  sandboxesEnabled(): boolean;
  rehearsal: RehearsalSource;
  /**
   * The site's description read again (theme, builder, capabilities, scopes), or the stored one if it does not
   * answer. `force`: read even while the site's breaker is not closed (a scope refusal proves the site answers).
   */
  refreshSite(site: Site, options?: { force?: boolean }): Promise<Site>;
};

export const defaultChatDeps: ChatDeps = {
  model: agentModel,
  // The owner's site or one shared with the member (the chat route checked the member's role).
  findSite: async (input) => (await findSiteWithRole(input))?.site,
  siteClient: (site) => siteClientFor(site),
  limits: budgetFromEnv,
  allowlist: () => configuredAllowlist(),
  sandboxesEnabled: () => sandboxConfig().enabled,
  rehearsal: async (input) => {
    const rehearsal = await getSandboxManager().rehearsal(input);
    return { sandboxId: rehearsal.sandbox.id, client: rehearsal.client, replaced: rehearsal.replaced };
  },
  // Not while the site's breaker is open or trying again: a paused site gets no extra request from us.
  refreshSite: async (site, options) =>
    options?.force || siteBreaker(site.id).snapshot().state === "closed" ? refreshSiteInfo(site) : site,
};

let depsOverride: Partial<ChatDeps> | undefined;

/** Tests: replace some dependencies of the route (e.g. observe the site client); `undefined` restores them. */
export function setChatDepsForTests(overrides: Partial<ChatDeps> | undefined) {
  depsOverride = overrides;
}

/** How long a turn waits for the site's description before it goes on with the stored one. */
const REFRESH_WAIT_MS = 1000;

const notFound = (what: string) => new AppError("not_found", `There is no such ${what} in your account.`);

function toChatMessage(row: { id: string; role: string; parts: unknown[]; metadata: unknown }): ChatMessage {
  return {
    id: row.id,
    role: row.role as ChatMessage["role"],
    parts: row.parts as ChatMessage["parts"],
    metadata: (row.metadata ?? undefined) as ChatMessage["metadata"],
  };
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
async function closeUnansweredApprovals(
  history: ChatMessage[],
  scope: { conversationId: string; userId: string; siteId: string },
  client: SiteClient,
) {
  const last = history.at(-1);
  if (last?.role !== "assistant") return;
  for (const part of last.parts) {
    if (!isToolUIPart(part) || part.state !== "approval-requested") continue;
    await decideApproval(
      scope,
      { toolCallId: part.toolCallId, operation: getToolName(part), input: part.input },
      false,
    );
    const call = { ...scope, turnId: last.id, toolCallId: part.toolCallId };
    await recordApprovalDecision({ ...call, approved: false, reason: "Not answered before the next message." });
    await takeBackDeniedUploads(client, call);
    Object.assign(part, {
      state: "output-denied",
      approval: { id: part.approval.id, approved: false, reason: "Not answered before the next message." },
    });
  }
}

/** Applies the user's answers to the pending approval requests of the last assistant message. */
async function applyApprovals(
  history: ChatMessage[],
  answers: ApprovalAnswer[],
  scope: { conversationId: string; userId: string; siteId: string },
  client: SiteClient,
): Promise<Set<string>> {
  const last = history.at(-1);
  const approved = new Set<string>();
  for (const answer of answers) {
    const part =
      last?.role === "assistant"
        ? last.parts.find((p) => isToolUIPart(p) && p.state === "approval-requested" && p.approval.id === answer.id)
        : undefined;
    if (!part || !isToolUIPart(part) || part.state !== "approval-requested") {
      throw new AppError(
        "approval_not_pending",
        "That approval request is not waiting for an answer any more. Reload the chat.",
      );
    }
    const decision = await decideApproval(
      scope,
      { toolCallId: part.toolCallId, operation: getToolName(part), input: part.input },
      answer.approved,
    );
    if (decision === "unknown")
      log.warn("approval answer without a matching request", {
        conversationId: scope.conversationId,
        toolCallId: part.toolCallId,
      });
    const granted = decision === "approved";
    // The plan waiting for this call: approved, it is written as shown; otherwise it is closed. Both audited.
    // The asking message is the turn: a tool call's id is told apart by it (lib/db/queries/changes.ts).
    const call = { ...scope, turnId: last!.id, toolCallId: part.toolCallId };
    await recordApprovalDecision({
      ...call,
      approved: granted,
      reason: granted ? undefined : (answer.reason ?? decision),
    });
    const reason =
      granted || decision === "denied"
        ? answer.reason
        : decision === "expired"
          ? "The approval came after the request expired; ask again if it is still wanted."
          : "No matching approval request was found.";
    Object.assign(part, {
      state: "approval-responded",
      approval: { ...part.approval, approved: granted, ...(reason ? { reason } : {}) },
    });
    if (granted) approved.add(part.toolCallId);
    else await takeBackDeniedUploads(client, call);
  }
  return approved;
}

/**
 * What the turn offers the model: the operations the site's token allows, those only a missing scope holds back
 * (locked), and how to read the scopes again: the owner may widen or narrow them in WordPress at any time.
 */
function turnOperations(site: Site, deps: ChatDeps) {
  const allowlist = deps.allowlist();
  const grant = grantFromSiteInfo(site.siteInfo, site.capabilities);
  return {
    operations: allowedOperations(grant, allowlist).operations,
    locked: lockedOperations(grant, allowlist),
    regrant: async () => {
      const fresh = await deps.refreshSite(site, { force: true });
      const now = grantFromSiteInfo(fresh.siteInfo, fresh.capabilities);
      return allowedOperations(now, allowlist).operations.map((op) => op.name);
    },
  };
}

function checkMessageSize(message: string | undefined): void {
  if (message !== undefined && Buffer.byteLength(message, "utf8") > MAX_MESSAGE_BYTES) {
    throw new AppError("payload_too_large", "Messages are limited to 8 KiB of text. Shorten it or split it in parts.", {
      details: { maxBytes: MAX_MESSAGE_BYTES },
    });
  }
}

/**
 * Where the turn works. Answers to approval requests continue the turn that asked, where it worked (an approved
 * live plan is written to the live site, never into a sandbox); a new message goes where the owner chose.
 */
function chooseMode(history: ChatMessage[], request: ChatTurnRequest, deps: ChatDeps): ChatMode {
  const asked = history.at(-1)?.role === "assistant" ? history.at(-1)?.metadata?.mode : undefined;
  const mode: ChatMode = request.approvals?.length
    ? (asked ?? "live")
    : (request.mode ?? (deps.sandboxesEnabled() ? "sandbox" : "live"));
  if (mode === "sandbox" && !deps.sandboxesEnabled()) {
    throw new AppError("sandbox_unavailable", "Sandboxes are not enabled on this service: chat in live mode.");
  }
  return mode;
}

/**
 * The turn's input applied to the history: answers to approvals (returning the approved calls), or the new user
 * message (starting the conversation, or closing the approvals it leaves unanswered).
 */
async function applyTurnInput(
  request: ChatTurnRequest,
  existing: boolean,
  history: ChatMessage[],
  scope: { conversationId: string; userId: string; siteId: string },
  client: SiteClient,
): Promise<Set<string>> {
  if (request.approvals?.length) {
    if (!existing) throw notFound("conversation");
    return applyApprovals(history, request.approvals, scope, client);
  }
  const text = (request.message ?? "").trim();
  const attached = await attachedUploads({ ids: request.uploads ?? [], userId: request.userId, siteId: scope.siteId });
  if (!existing) {
    await insertConversation({
      id: scope.conversationId,
      userId: request.userId,
      siteId: scope.siteId,
      title: (text || attached[0]?.name || "").slice(0, 80),
      now: now(),
    });
  } else {
    await closeUnansweredApprovals(history, scope, client);
  }
  history.push({
    id: randomUUID(),
    role: "user",
    parts: [
      ...(text ? [{ type: "text" as const, text }] : []),
      ...attached.map((data) => ({ type: "data-attachment" as const, id: data.id, data })),
    ],
  });
  return new Set<string>();
}

/** At most a second: a slow site keeps its stored description for this turn, and the refresh lands for the next. */
function siteAsDescribed(described: Promise<Site>, site: Site): Promise<Site> {
  return Promise.race([
    described,
    new Promise<Site>((resolve) => setTimeout(() => resolve(site), REFRESH_WAIT_MS).unref()),
  ]);
}

/** What a turn checks before it looks at the site: the message's size, then that a model is configured. */
export function checkTurnCanStart(
  message: string | undefined,
  deps: Pick<ChatDeps, "model"> = { ...defaultChatDeps, ...depsOverride },
) {
  checkMessageSize(message);
  const model = deps.model();
  if (!model) throw new AppError("agent_unavailable", "The assistant is not configured on this server.");
  return model;
}

export async function startChatTurn(
  request: ChatTurnRequest,
  deps: ChatDeps = { ...defaultChatDeps, ...depsOverride },
): Promise<Response> {
  const model = checkTurnCanStart(request.message, deps);

  const site = await deps.findSite({ userId: request.userId, siteId: request.siteId });
  if (!site) throw notFound("site");
  const existing = request.conversationId
    ? await findConversationForSiteUrl({ id: request.conversationId, userId: request.userId, url: site.url })
    : undefined;
  if (request.conversationId && !existing) throw notFound("conversation");
  if (effectiveStatus(site) !== "active") {
    throw new AppError("site_not_active", "This site is not connected yet. Finish pairing it before chatting.");
  }
  const liveClient = deps.siteClient(site);
  // Read while the history loads and the sandbox is prepared: the operations offered follow what the site is now.
  const described = deps.refreshSite(site);

  const history = existing ? (await listMessages({ conversationId: existing.id })).map(toChatMessage) : [];
  const mode = chooseMode(history, request, deps);
  const scope = { conversationId: existing?.id ?? randomUUID(), userId: request.userId, siteId: site.id };
  const approvedToolCalls = await applyTurnInput(request, Boolean(existing), history, scope, liveClient);

  // Sandbox mode: the agent's operations reach only the conversation's sandbox; the live site is not touched.
  const rehearsal =
    mode === "sandbox"
      ? await deps.rehearsal({
          userId: request.userId,
          siteId: site.id,
          conversationId: scope.conversationId,
          live: liveClient,
        })
      : undefined;

  const current = await siteAsDescribed(described, site);
  const { operations, locked, regrant } = turnOperations(current, deps);
  const notVisible = await lastChangeNotVisible(scope.conversationId, request.userId);
  const stream = streamTurn({
    userId: request.userId,
    site: { id: site.id, url: site.url, name: current.name, pageBuilder: current.pageBuilder },
    conversationId: scope.conversationId,
    history,
    operations,
    locked,
    regrant,
    client: rehearsal?.client ?? liveClient,
    model,
    limits: deps.limits(),
    approvedToolCalls,
    ...(rehearsal ? { sandboxId: rehearsal.sandboxId } : {}),
    ...(rehearsal?.replaced ? { freshCopy: rehearsal.replaced } : {}),
    flagged: flaggedInHistory(history),
    signal: request.signal,
    ...(notVisible ? { notVisible } : {}),
    afterLiveWrite: ({ changeSetId, itemIds }) =>
      void scheduleVerification({ userId: request.userId, siteId: site.id, changeSetId, trigger: "write", itemIds }),
    // A job counts its selection on the live site; in sandbox mode it writes only into the conversation's sandbox.
    startJob: jobStarter(request.userId, site.id, scope.conversationId, liveClient, rehearsal?.sandboxId),
  });
  return createUIMessageStreamResponse({
    stream,
    headers: { "Cache-Control": "no-store", "X-Conversation-Id": scope.conversationId },
  });
}

export type ConversationSummary = { id: string; title: string; updatedAt: string };

export type ChatPageData = {
  site: { id: string; url: string; name: string | null; active: boolean };
  conversations: ConversationSummary[];
  /** The conversation shown: the one asked for, else the latest; none for a new chat. */
  conversationId?: string;
  messages: ChatMessage[];
  agentConfigured: boolean;
  /** What each operation is called on a card, from the operations themselves. */
  labels: Record<string, string>;
  /** Sandboxes are on: the chat offers sandbox mode, and uses it by default. */
  sandboxesEnabled: boolean;
  /** What the site's token lets Sitewright do, in words; null when the plugin did not say. */
  permissions: Permissions | null;
};

/**
 * What the chat page shows: the site, its conversations with the user (those of every pairing of the same
 * address, so history survives disconnecting and re-pairing), the one asked for (`conversationId`, or the
 * latest unless `fresh`), and whether the agent is on. An unknown conversation id is a 404, like another user's.
 */
export async function loadChatPage({
  userId,
  siteId,
  conversationId,
  fresh = false,
}: {
  userId: string;
  siteId: string;
  conversationId?: string;
  fresh?: boolean;
}): Promise<ChatPageData | undefined> {
  const stored =
    (await findSiteOrItsRepairForUser({ userId, siteId })) ?? (await findSiteWithRole({ userId, siteId }))?.site;
  if (!stored) return undefined;
  // Permissions saved in WordPress since the last look show on this page without a chat turn.
  const site = await refreshWhenStale(stored);
  const scopes = grantedScopes(site.siteInfo);
  const conversations = await listConversationsForSiteUrl({ userId, url: site.url });
  let current = fresh ? undefined : conversations[0];
  if (conversationId) {
    current =
      conversations.find((c) => c.id === conversationId) ??
      (await findConversationForSiteUrl({ id: conversationId, userId, url: site.url }));
    if (!current) return undefined;
  }
  const messages = current ? (await listMessages({ conversationId: current.id })).map(toChatMessage) : [];
  return {
    site: { id: site.id, url: site.url, name: site.name, active: effectiveStatus(site) === "active" },
    conversations: conversations.map((c) => ({
      id: c.id,
      title: c.title || "Untitled conversation",
      updatedAt: c.updatedAt.toISOString(),
    })),
    conversationId: current?.id,
    messages,
    agentConfigured: isAgentConfigured(),
    labels: Object.fromEntries(ALL_OPERATIONS.map((op) => [op.name, op.label])),
    sandboxesEnabled: sandboxConfig().enabled,
    permissions: scopes ? describePermissions(scopes) : null,
  };
}

/** One stored conversation, for the chat page to show what was saved after a turn ended in an error. */
export async function loadConversationMessages({
  userId,
  siteId,
  conversationId,
}: {
  userId: string;
  siteId: string;
  conversationId: string;
}): Promise<ChatMessage[] | undefined> {
  const site = await findSiteForUser({ userId, siteId });
  if (!site) return undefined;
  const conversation = await findConversationForSiteUrl({ id: conversationId, userId, url: site.url });
  if (!conversation) return undefined;
  return (await listMessages({ conversationId: conversation.id })).map(toChatMessage);
}

/**
 * When the conversation's latest live change was written but not found on the live site (and not undone since),
 * the model is told why, in Sitewright's own words (never the site's text), so it says so to the owner.
 */
async function lastChangeNotVisible(conversationId: string, userId: string): Promise<NotVisible | undefined> {
  const latest = await findLatestLiveChangeSet({ conversationId, userId }).catch(() => undefined);
  const verification = latest?.verification;
  if (!latest || verification?.status !== "not_visible" || latest.status === "undone") return undefined;
  const reasons = verification.urls.map((url) => url.reason ?? "").join(" ");
  if (reasons.includes("a cache in front of the site")) return "cache";
  if (reasons.includes("after the write")) return "changed";
  return "other";
}

/** Live turns may start a bulk job (docs/bulk-jobs.md): the tool's input is its spec, checked by the operation. */
function jobStarter(userId: string, siteId: string, conversationId: string, client: SiteClient, sandboxId?: string) {
  return async (spec: unknown) => {
    const job = await startBulkJob({ userId, siteId, conversationId, spec: spec as JobSpec, client, sandboxId });
    const where = sandboxId
      ? "It changes the sandbox copy only; the owner reviews it and applies it to the live site in one click."
      : "Each change waits in one review queue.";
    return {
      summary: `Started a bulk job: ${job.selection.count} ${job.selection.description}. ${where}`,
      data: { job },
    };
  };
}
