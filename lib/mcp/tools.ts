/**
 * MCP's door (docs/mcp.md): a protocol adapter that holds no rule of its own. It lists the chat's operations for
 * the sites the owner granted (each with a `siteId` argument and annotations from its risk), plus `list_sites` and
 * `get_change_set`, and turns each call into the one use case (lib/agent/call-operation.ts): what may be called,
 * the plan, where visitors would see it, the click rule and the audit are decided there, for every door alike. A
 * write visitors would see answers pending with the review address and the places; an unseen one is written.
 * With `mode: "sandbox"` the call works in the connection's sandbox copy of the site instead (sandbox.ts): writes go
 * to the copy and wait, as one change set, for the owner's Apply on the review page. `start_bulk_job` starts a job on
 * the live site whose visible items wait in one queue the owner reviews (docs/bulk-jobs.md).
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import {
  type Actor,
  type CallOutcome,
  CHAT_ONLY_OPERATIONS,
  callableOperations,
  callOperation,
  doorOperations,
  jobQueueUrl,
  reviewUrl,
  startCallAudit,
} from "@/lib/agent/call-operation";
import { OperationError, type Operation, operationsByName } from "@/lib/agent/operations";
import { agentModel } from "@/lib/agent/model";
import { leanJsonSchema } from "@/lib/agent/tool-definitions";
import { wrapForModel } from "@/lib/agent/untrusted";
import { getChangeSet, publicChangeItem, type TurnScope } from "@/lib/changes/change-sets";
import { placesSentence } from "@/lib/changes/places";
import { withActor } from "@/lib/audit/actor-context";
import { findSiteForUser, findUserById } from "@/lib/db/queries";
import type { OAuthGrant, Site } from "@/lib/db/schema";
import { isAppError } from "@/lib/errors";
import { log } from "@/lib/log";
import type { JobSpec } from "@/lib/jobs/spec";
import { isSiteRequestError } from "@/lib/sites/client";
import { siteClientFor } from "@/lib/sites/sites";
import type { SiteClient } from "@/lib/sites/types";
import { jobForChangeSet, startBulkJob } from "@/lib/workflows/bulk-job";
import { defaultChatDeps, type RehearsalSource } from "@/lib/workflows/chat-turn";
import { MODE_PROPERTY, type McpMode, type McpRehearsal, mcpRehearsal, sandboxConversationOf } from "./sandbox";

export type McpCaller = { grant: OAuthGrant; clientName: string };

export type ToolDefinition = {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
};

export type ToolAnswer = {
  content: Array<{ type: "text"; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

type Deps = {
  siteClient(site: Site): SiteClient;
  /** Whether sandboxes are on (else sandbox mode answers `sandbox_unavailable`). */
  sandboxesEnabled(): boolean;
  /** The conversation's sandbox copy of the site: the chat's own (lib/workflows/chat-turn.ts). */
  rehearsal: RehearsalSource;
};
let override: Partial<Deps> | undefined;
/** Tests: another site client (one trusting the local test CA), sandboxes on; `undefined` restores the defaults. */
export function setMcpDepsForTests(deps: Partial<Deps> | undefined) {
  override = deps;
}
const deps = (): Deps => ({
  siteClient: (site) => siteClientFor(site),
  sandboxesEnabled: defaultChatDeps.sandboxesEnabled,
  rehearsal: defaultChatDeps.rehearsal,
  ...override,
});

const SITE_ID = { type: "string", description: "The id of one of the granted sites (see list_sites)" };

/** The operations this grant may call on at least one site: reading only, or also proposing changes. */
const operationsFor = (grant: OAuthGrant): Operation[] => doorOperations("mcp", grant.access);

const WRITE_NOTE =
  " Writes that visitors would see are not made at once: they wait as a pending change set until the site's owner approves it in Sitewright (in sandbox mode: they go to the sandbox copy and wait for the owner's Apply); the answer gives the review address.";
const JOB_NOTE =
  " Live site only. Runs in the background: items visitors cannot see (drafts, unused images) are written as planned, the rest wait in one queue the owner reviews at the answer's reviewUrl; follow it with get_change_set.";

function definition(op: Operation, withMode: boolean): ToolDefinition {
  const schema = leanJsonSchema(z.toJSONSchema(op.input, { io: "input", unrepresentable: "any" })) as {
    properties?: Record<string, unknown>;
    required?: string[];
  };
  const visibleNote = op.risk === "read" ? "" : op.startsJob ? JOB_NOTE : WRITE_NOTE;
  return {
    name: op.name,
    title: op.label,
    description: `${op.description}${visibleNote}`,
    inputSchema: {
      type: "object",
      ...schema,
      properties: { siteId: SITE_ID, ...(withMode ? { mode: MODE_PROPERTY } : {}), ...(schema.properties ?? {}) },
      required: ["siteId", ...(schema.required ?? [])],
    },
    annotations: {
      readOnlyHint: op.risk === "read",
      destructiveHint: op.risk === "destructive",
      idempotentHint: op.risk === "read",
      openWorldHint: false,
    },
  };
}

export function listTools(caller: McpCaller): ToolDefinition[] {
  return [
    {
      name: "list_sites",
      title: "List sites",
      description: "The WordPress sites the owner granted to this connection, with their ids, addresses and status.",
      inputSchema: { type: "object", properties: {} },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    {
      name: "get_change_set",
      title: "Change set state",
      description:
        "The state of a change set this connection made, live or in sandbox mode: pending (waiting for the owner's approval or Apply), applied, partially applied, undone, discarded, with its items and the check of the live site.",
      inputSchema: {
        type: "object",
        properties: { siteId: SITE_ID, changeSetId: { type: "string" } },
        required: ["siteId", "changeSetId"],
      },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    // Sandbox mode is for rehearsing changes: a read-only connection works on the live site only.
    ...operationsFor(caller.grant).map((op) => definition(op, caller.grant.access === "propose" && !op.startsJob)),
  ];
}

const text = (value: unknown): ToolAnswer["content"] => [{ type: "text", text: JSON.stringify(value, null, 2) }];
const failure = (code: string, message: string): ToolAnswer => ({
  content: text({ error: { code, message } }),
  structuredContent: { error: { code, message } },
  isError: true,
});

async function grantedSite(caller: McpCaller, siteId: unknown): Promise<Site | ToolAnswer> {
  if (typeof siteId !== "string" || !caller.grant.siteIds.includes(siteId)) {
    return failure("not_found", "This connection has no such site. Call list_sites for the granted ones.");
  }
  const site = await findSiteForUser({ userId: caller.grant.userId, siteId });
  if (site?.status !== "active") {
    return failure("site_not_active", "This site is not connected to Sitewright at the moment.");
  }
  return site;
}

async function listSitesTool(caller: McpCaller): Promise<ToolAnswer> {
  const sites = [];
  for (const id of caller.grant.siteIds) {
    const site = await findSiteForUser({ userId: caller.grant.userId, siteId: id });
    if (site) sites.push({ id: site.id, url: site.url, name: site.name, status: site.status });
  }
  return { content: text({ sites, access: caller.grant.access }), structuredContent: { sites } };
}

async function changeSetTool(caller: McpCaller, args: Record<string, unknown>): Promise<ToolAnswer> {
  const site = await grantedSite(caller, args.siteId);
  if ("content" in site) return site;
  const changeSetId = typeof args.changeSetId === "string" ? args.changeSetId : "";
  try {
    const set = await getChangeSet({ userId: caller.grant.userId, siteId: site.id, changeSetId });
    const own = [conversationOf(caller), sandboxConversationOf(caller.grant, site.id)];
    if (!own.includes(set.conversationId)) throw new Error("not this connection's");
    const job = await jobForChangeSet(set.id);
    const answer = {
      id: set.id,
      target: set.target,
      status: set.status,
      reviewUrl: job ? jobQueueUrl(site.id, job.id) : reviewUrl(site.id, set.id),
      ...(job ? { job: { id: job.id, status: job.status, progress: job.progress } } : {}),
      verification: set.verification ?? null,
      items: set.items
        .map((item) => publicChangeItem(item))
        .map(({ id, kind, title, summary, status }) => ({ id, kind, title, summary, status })),
    };
    return { content: text(answer), structuredContent: answer };
  } catch {
    return failure("not_found", "This connection made no such change set on that site.");
  }
}

/** An MCP connection's change sets belong to one conversation of its own. */
export const conversationOf = (caller: McpCaller) => `mcp:${caller.grant.id}`;

function describeFailure(error: unknown, context: { operation: string; siteId: string }): ToolAnswer {
  if (error instanceof OperationError) return failure(error.code, error.message);
  // Our own refusals say what to do (`capacity_reached` for a sandbox at the owner's share, …).
  if (isAppError(error) && error.code !== "internal_error") return failure(error.code, error.message);
  if (isSiteRequestError(error)) {
    return failure(error.kind === "rejected" ? "site_rejected" : "site_unreachable", error.message);
  }
  log.error("an MCP tool call failed", { error, ...context });
  return failure("internal_error", "The operation failed because of an error in Sitewright; it may not have run.");
}

type PreparedCall = { site: Site; mode: McpMode; input: unknown };

/** The checks before a call runs: the grant's access, the site and what it offers, the mode, the input. */
async function prepareCall(
  caller: McpCaller,
  op: Operation,
  args: Record<string, unknown>,
): Promise<PreparedCall | ToolAnswer> {
  if (!operationsFor(caller.grant).includes(op)) {
    return failure(
      "not_allowed",
      caller.grant.access === "read"
        ? "This connection may only read: the owner granted read access."
        : "This operation is not allowed on Sitewright.",
    );
  }
  const site = await grantedSite(caller, args.siteId);
  if ("content" in site) return site;
  if (!callableOperations({ door: "mcp", access: caller.grant.access, site }).includes(op)) {
    return failure("not_allowed", `The site's connection does not allow ${op.name} (its scopes or theme).`);
  }
  const { siteId: _siteId, mode = "live", ...rest } = args;
  if (mode !== "live" && mode !== "sandbox") return failure("invalid_input", 'mode: must be "live" or "sandbox".');
  if (op.startsJob && mode !== "live")
    return failure("job_unavailable", 'Bulk jobs run on the live site only: call again without mode (or mode "live").');
  if (mode === "sandbox" && caller.grant.access !== "propose") {
    return failure(
      "not_allowed",
      "Sandbox mode is for proposing changes; this connection may only read the live site.",
    );
  }
  if (mode === "sandbox" && !deps().sandboxesEnabled()) {
    return failure(
      "sandbox_unavailable",
      'Sandboxes are not enabled on this Sitewright: call again with mode "live" (or without mode) to work on the live site, where visible changes wait for the owner\'s approval.',
    );
  }
  const parsed = op.input.safeParse(rest);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return failure("invalid_input", `${issue?.path.join(".") || "input"}: ${issue?.message ?? "not valid"}`);
  }
  return { site, mode, input: parsed.data };
}

const actorOf = (caller: McpCaller): Actor => ({ userId: caller.grant.userId, door: "mcp", client: caller.clientName });

async function runOperation(caller: McpCaller, op: Operation, args: Record<string, unknown>): Promise<ToolAnswer> {
  const call = await prepareCall(caller, op, args);
  if ("content" in call) return call;
  const callId = `mcp_${randomUUID()}`;
  const audit = await startCallAudit({
    actor: actorOf(caller),
    conversationId:
      call.mode === "sandbox" ? sandboxConversationOf(caller.grant, call.site.id) : conversationOf(caller),
    siteId: call.site.id,
    callId,
    op,
    input: call.input,
  });
  if (!audit)
    return failure(
      "audit_unavailable",
      "Not run: Sitewright could not record the action, so it did not touch the site.",
    );
  try {
    const answer = await execute(caller, op, call, callId);
    await audit.finish(answer.isError ? { ok: false, error: answer.content[0]!.text } : { ok: true });
    return answer;
  } catch (error) {
    const answer = describeFailure(error, { operation: op.name, siteId: call.site.id });
    await audit.finish({ ok: false, error: answer.content[0]!.text });
    return answer;
  }
}

/** Where a live call's writes are recorded: the connection's conversation, one turn a day. */
const liveScope = (caller: McpCaller, site: Site): TurnScope => ({
  userId: caller.grant.userId,
  siteId: site.id,
  conversationId: conversationOf(caller),
  turnId: `${caller.grant.id}:${new Date().toISOString().slice(0, 10)}`,
  target: "live",
});

async function execute(caller: McpCaller, op: Operation, call: PreparedCall, callId: string): Promise<ToolAnswer> {
  if (op.startsJob) return startJob(caller, call);
  const { site, input } = call;
  const live = deps().siteClient(site);
  // Sandbox mode: reads and writes reach only the connection's copy of the site; the live site is not written.
  const rehearsal =
    call.mode === "sandbox"
      ? await mcpRehearsal({
          grant: caller.grant,
          clientName: caller.clientName,
          site,
          live,
          rehearsal: deps().rehearsal,
        })
      : undefined;
  // The change set and its items name the person by the MCP door and the client's name (docs/teams.md).
  const person = await findUserById({ id: caller.grant.userId });
  const actor = {
    userId: caller.grant.userId,
    name: person?.name?.trim() || person?.email || "MCP client",
    door: "mcp" as const,
    client: caller.clientName,
  };
  const outcome = await withActor(actor, () =>
    callOperation({
      actor: actorOf(caller),
      scope: rehearsal?.scope ?? liveScope(caller, site),
      client: rehearsal?.client ?? live,
      op,
      input,
      callId,
    }),
  );
  return rehearsal ? sandboxAnswer(outcome, rehearsal) : liveAnswer(outcome);
}

const answered = (answer: Record<string, unknown>): ToolAnswer => ({
  content: text(answer),
  structuredContent: answer,
});

/** The use case's outcome on the live site, as the client reads it. */
function liveAnswer(outcome: CallOutcome): ToolAnswer {
  if (outcome.status === "done") {
    const { result } = outcome;
    return { content: text({ summary: result.summary, target: result.target, ...wrapForModel(result.data ?? null) }) };
  }
  if (outcome.status === "applied") {
    const { result, changeSetId } = outcome;
    return answered({ status: "applied", summary: result.summary, changeSetId, ...wrapForModel(result.data ?? null) });
  }
  return answered({
    status: "pending",
    changeSetId: outcome.changeSetId,
    reviewUrl: outcome.reviewUrl,
    summary: outcome.summary,
    visibleIn: outcome.items.map((item) => ({
      title: item.title,
      places: (item.places ?? []).map((place) => place.label),
    })),
    message: `Nothing visible changed yet: this change waits for the site owner's approval in Sitewright. ${placesSentence(outcome.items.flatMap((item) => item.places ?? []))} Tell the owner to review it at reviewUrl; call get_change_set to see whether it was applied.`,
  });
}

/**
 * Sandbox mode: the write lands in the sandbox at once (visible or not: visitors see none of it) and joins the
 * connection's pending sandbox change set, which waits for the owner's Apply on the review page.
 */
function sandboxAnswer(outcome: CallOutcome, rehearsal: McpRehearsal): ToolAnswer {
  if (outcome.status === "done") {
    const { result } = outcome;
    return {
      content: text({
        mode: "sandbox",
        summary: result.summary,
        target: result.target,
        ...wrapForModel(result.data ?? null),
      }),
    };
  }
  const changeSetId = outcome.changeSetId;
  return answered({
    status: "pending",
    mode: "sandbox",
    changeSetId,
    sandboxId: rehearsal.sandboxId,
    reviewUrl: reviewUrl(rehearsal.scope.siteId, changeSetId),
    summary: outcome.status === "applied" ? outcome.result.summary : outcome.summary,
    message:
      "Written in Sitewright's sandbox copy of the site only: the live site is unchanged. Your sandbox-mode writes gather in this change set until the owner applies it: tell the owner to review and Apply it at reviewUrl; call get_change_set to see whether it was applied.",
    ...(outcome.status === "applied" ? wrapForModel(outcome.result.data ?? null) : {}),
  });
}

/**
 * A bulk job, as the chat starts one: counted first, planned in the background under the connection's conversation;
 * what visitors would see waits in the job's queue, whose address goes to the owner.
 */
async function startJob(caller: McpCaller, call: PreparedCall): Promise<ToolAnswer> {
  const spec = call.input as JobSpec;
  if (spec.change.kind === "write" && !agentModel())
    return failure(
      "not_available",
      "This Sitewright has no language model of its own to write text per item: use a replace or set change, or make the changes one by one.",
    );
  const job = await startBulkJob({
    userId: caller.grant.userId,
    siteId: call.site.id,
    conversationId: conversationOf(caller),
    spec,
    client: deps().siteClient(call.site),
  });
  const answer = {
    status: job.status,
    jobId: job.id,
    changeSetId: job.changeSetId,
    selection: job.selection,
    reviewUrl: jobQueueUrl(call.site.id, job.id),
    message: `The job is planning ${job.selection.count} items (${job.selection.description}) in the background. Items visitors cannot see are written as planned; the rest wait for the site owner's approval: tell the owner to review the queue at reviewUrl; call get_change_set with changeSetId to follow it.`,
  };
  return { content: text(answer), structuredContent: answer };
}

export async function callTool(caller: McpCaller, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  if (name === "list_sites") return listSitesTool(caller);
  if (name === "get_change_set") return changeSetTool(caller, args);
  const op = operationsByName.get(name);
  if (!op || CHAT_ONLY_OPERATIONS.has(name)) return failure("not_found", `There is no tool named ${name}.`);
  return runOperation(caller, op, args);
}
