/**
 * What an MCP client may call (docs/mcp.md): the chat's operations for the sites the owner granted (each with a
 * `siteId` argument and annotations from its risk), plus `list_sites` and `get_change_set`. An external agent is
 * just another model: tools = the operator's allowlist ∩ the site token's scopes ∩ the grant's access, and the
 * owner's click holds — an invisible write (a draft, a private page) is written and recorded in the client's change
 * set; a visible one is stored as a pending change set and answered with the address where the owner reviews it.
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { ALL_OPERATIONS, OperationError, type Operation, operationsByName } from "@/lib/agent/operations";
import { allowedOperations, configuredAllowlist, grantFromSiteInfo } from "@/lib/agent/registry";
import { leanJsonSchema } from "@/lib/agent/tool-definitions";
import { wrapForModel } from "@/lib/agent/untrusted";
import { writePlanNow } from "@/lib/agent/writes";
import {
  auditChange,
  getChangeSet,
  publicChangeItem,
  recordPendingPlan,
  type TurnScope,
} from "@/lib/changes/change-sets";
import { now } from "@/lib/clock";
import { findSiteForUser, finishToolAudit, insertToolAudit } from "@/lib/db/queries";
import type { OAuthGrant, Site } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { isSiteRequestError } from "@/lib/sites/client";
import { siteClientFor } from "@/lib/sites/sites";
import type { SiteClient } from "@/lib/sites/types";

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

type Deps = { siteClient(site: Site): SiteClient };
let override: Partial<Deps> | undefined;
/** Tests: another site client (one trusting the local test CA); `undefined` restores the default. */
export function setMcpDepsForTests(deps: Partial<Deps> | undefined) {
  override = deps;
}
const deps = (): Deps => ({ siteClient: (site) => siteClientFor(site), ...override });

const SITE_ID = { type: "string", description: "The id of one of the granted sites (see list_sites)" };

export const reviewUrl = (siteId: string, changeSetId: string) =>
  `${env().APP_URL.replace(/\/+$/, "")}/sites/${siteId}/review/${changeSetId}`;

/** The operations this grant may call on at least one site: reading only, or also proposing changes. */
function operationsFor(grant: OAuthGrant): Operation[] {
  const allowlist = new Set(configuredAllowlist());
  return ALL_OPERATIONS.filter((op) => allowlist.has(op.name) && (grant.access === "propose" || op.risk === "read"));
}

function definition(op: Operation): ToolDefinition {
  const schema = leanJsonSchema(z.toJSONSchema(op.input, { io: "input", unrepresentable: "any" })) as {
    properties?: Record<string, unknown>;
    required?: string[];
  };
  const visibleNote =
    op.risk === "read"
      ? ""
      : " Writes that visitors would see are not made at once: they wait as a pending change set until the site's owner approves it in Sitewright; the answer gives the review address.";
  return {
    name: op.name,
    title: op.label,
    description: `${op.description}${visibleNote}`,
    inputSchema: {
      type: "object",
      ...schema,
      properties: { siteId: SITE_ID, ...(schema.properties ?? {}) },
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
        "The state of a change set this connection made: pending (waiting for the owner's approval), applied, undone, with its items and the check of the live site.",
      inputSchema: {
        type: "object",
        properties: { siteId: SITE_ID, changeSetId: { type: "string" } },
        required: ["siteId", "changeSetId"],
      },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    ...operationsFor(caller.grant).map(definition),
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
    if (set.conversationId !== conversationOf(caller)) throw new Error("not this connection's");
    const answer = {
      id: set.id,
      status: set.status,
      reviewUrl: reviewUrl(site.id, set.id),
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

function describeFailure(error: unknown): ToolAnswer {
  if (error instanceof OperationError) return failure(error.code, error.message);
  if (isSiteRequestError(error)) {
    return failure(error.kind === "rejected" ? "site_rejected" : "site_unreachable", error.message);
  }
  return failure("internal_error", "The operation failed because of an error in Sitewright; it may not have run.");
}

async function runOperation(caller: McpCaller, op: Operation, args: Record<string, unknown>): Promise<ToolAnswer> {
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
  const offered = allowedOperations(grantFromSiteInfo(site.siteInfo, site.capabilities)).operations;
  if (!offered.includes(op)) {
    return failure("not_allowed", `The site's connection does not allow ${op.name} (its scopes or theme).`);
  }
  const { siteId: _siteId, ...rest } = args;
  const parsed = op.input.safeParse(rest);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return failure("invalid_input", `${issue?.path.join(".") || "input"}: ${issue?.message ?? "not valid"}`);
  }
  const client = deps().siteClient(site);
  const callId = `mcp_${randomUUID()}`;
  const started = now();
  const auditId = randomUUID();
  await insertToolAudit({
    id: auditId,
    conversationId: conversationOf(caller),
    userId: caller.grant.userId,
    siteId: site.id,
    toolCallId: callId,
    operation: op.name,
    risk: op.risk,
    input: parsed.data,
    status: "started",
    error: null,
    startedAt: started,
    finishedAt: null,
    durationMs: null,
  });
  const finish = (status: "ok" | "error", error?: string) =>
    finishToolAudit({
      id: auditId,
      status,
      error: error ?? null,
      finishedAt: now(),
      durationMs: now().getTime() - started.getTime(),
    }).catch(() => undefined);
  try {
    const answer = await execute(caller, op, site, client, parsed.data, callId);
    await finish(answer.isError ? "error" : "ok");
    return answer;
  } catch (error) {
    const answer = describeFailure(error);
    await finish("error", answer.content[0]!.text);
    return answer;
  }
}

async function execute(
  caller: McpCaller,
  op: Operation,
  site: Site,
  client: SiteClient,
  input: unknown,
  callId: string,
): Promise<ToolAnswer> {
  if (op.run && !op.plan) {
    const result = await op.run(client, input);
    return { content: text({ summary: result.summary, target: result.target, ...wrapForModel(result.data ?? null) }) };
  }
  const plan = await op.plan!(client, input);
  const day = new Date().toISOString().slice(0, 10);
  const scope: TurnScope = {
    userId: caller.grant.userId,
    siteId: site.id,
    conversationId: conversationOf(caller),
    turnId: `${caller.grant.id}:${day}`,
    target: "live",
  };
  const visible = op.risk === "destructive" || plan.items.some((item) => item.visible);
  if (visible) {
    // Every visible write waits in its own change set, reviewed at its own address.
    const { changeSetId, items } = await recordPendingPlan({ ...scope, turnId: callId }, callId, plan.items);
    await auditChange({
      changeSetId,
      siteId: site.id,
      userId: caller.grant.userId,
      action: "write",
      itemIds: items.map((item) => item.id),
      outcome: "pending",
      detail: `Proposed by the MCP client "${caller.clientName}"; waits for the owner's approval.`,
    });
    const answer = {
      status: "pending",
      changeSetId,
      reviewUrl: reviewUrl(site.id, changeSetId),
      summary: plan.summary,
      message:
        "Nothing visible changed yet: this change waits for the site owner's approval in Sitewright. Tell the owner to review it at reviewUrl; call get_change_set to see whether it was applied.",
    };
    return { content: text(answer), structuredContent: answer };
  }
  const result = await writePlanNow({ scope, client, plans: new Map(), emitChange: () => {} }, callId, plan);
  const data = (result.data ?? {}) as { changeSetId?: string };
  const answer = {
    status: "applied",
    summary: result.summary,
    changeSetId: data.changeSetId,
    ...wrapForModel(result.data ?? null),
  };
  return { content: text(answer), structuredContent: answer };
}

export async function callTool(caller: McpCaller, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  if (name === "list_sites") return listSitesTool(caller);
  if (name === "get_change_set") return changeSetTool(caller, args);
  const op = operationsByName.get(name);
  if (!op) return failure("not_found", `There is no tool named ${name}.`);
  return runOperation(caller, op, args);
}
