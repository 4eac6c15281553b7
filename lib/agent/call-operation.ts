/**
 * One use case for calling an operation on a site, whatever the door: the chat, an MCP client, a bulk job, a
 * WordPress ability (docs/change-sets.md, "One rule for every door").
 * 1. What the caller may call: the operator's allowlist ∩ what the door offers (and its grant's access) ∩ what the
 *    site's token allows (scopes, capabilities, features, theme).
 * 2. The plan: what the write would change, item by item, with the versions it read.
 * 3. Where visitors would see each planned item: the plugin decides it from WordPress's own data and names the
 *    places (`planVisibility`); when it cannot tell, the item counts as visible.
 * 4. The click rule: a destructive operation, or any visible item, waits as a pending change set the owner
 *    reviews (its review URL). Otherwise the plan is written now, and the site decides again in the write's own
 *    lock (`requireInvisible`): an item that became visible since (a page was published meanwhile) waits too.
 *    In a sandbox nothing is seen by visitors: writes land at once and the whole set waits for Apply.
 * 5. The audit: one tool-audit row per call (before the site is touched) and the change audit.
 * A door is a protocol adapter: it turns its request into a call and the outcome into its own answer.
 */
import { randomUUID } from "node:crypto";
import { auditChange, recordPendingPlan, type TurnScope } from "@/lib/changes/change-sets";
import { chainedOn } from "@/lib/changes/chains";
import type { PlannedItem } from "@/lib/changes/plan";
import { now } from "@/lib/clock";
import { finishToolAudit, insertToolAudit } from "@/lib/db/queries";
import type { ChangeItem, ChangeTarget, Site, VisiblePlace } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { isVisibleItemsError, planVisibility, type VisibleItemsError } from "@/lib/sites/items";
import type { SiteClient } from "@/lib/sites/types";
import { ALL_OPERATIONS, type Operation, type OperationResult, type PlanContext, type WritePlan } from "./operations";
import { allowedOperations, configuredAllowlist, grantFromSiteInfo } from "./registry";
import { writePlanNow, type WriteContext } from "./writes";

/** Where a call comes from (API.md "Members and audit": `door`). */
export type Door = "chat" | "mcp" | "job" | "ability";

/** Who asks, and through which door; `client` names an MCP client or an ability's caller. */
export type Actor = { userId: string; door: Door; client?: string };

export const reviewUrl = (siteId: string, changeSetId: string) =>
  `${env().APP_URL.replace(/\/+$/, "")}/sites/${siteId}/review/${changeSetId}`;

export const jobQueueUrl = (siteId: string, jobId: string) =>
  `${env().APP_URL.replace(/\/+$/, "")}/sites/${siteId}/jobs/${jobId}/queue`;

/**
 * Operations only the chat can run: add_image places a file through the chat's turn (an attached upload, or an
 * address it fetches for the turn), which another door has not; images reach only the chat's model.
 */
export const CHAT_ONLY_OPERATIONS: ReadonlySet<string> = new Set(["add_image"]);

/** What a door offers before a site is chosen: the operator's allowlist, the door's limits, the grant's access. */
export function doorOperations(door: Door, access: "read" | "propose" = "propose"): Operation[] {
  const allowlist = new Set(configuredAllowlist());
  return ALL_OPERATIONS.filter(
    (op) =>
      allowlist.has(op.name) &&
      (door === "chat" || (!op.vision && !CHAT_ONLY_OPERATIONS.has(op.name))) &&
      (access === "propose" || op.risk === "read"),
  );
}

/** What a door may call on one site: what it offers ∩ what the site's token allows. */
export function callableOperations(input: {
  door: Door;
  access?: "read" | "propose";
  site: Pick<Site, "siteInfo" | "capabilities">;
}): Operation[] {
  const offered = new Set(
    allowedOperations(grantFromSiteInfo(input.site.siteInfo, input.site.capabilities)).operations,
  );
  return doorOperations(input.door, input.access).filter((op) => offered.has(op));
}

/** The places as stored and shown: the site's list, and one more line when it found more than it listed. */
function placesOf(places: VisiblePlace[], more: number): VisiblePlace[] {
  return more > 0 ? [...places, { kind: "more", label: `${more} more places` }] : places;
}

/**
 * Where visitors would see each planned item, as the site decides it. Live only: in a sandbox visitors see
 * nothing, so the items stay as planned (the sandbox's set waits for Apply as a whole).
 */
export async function seeVisibility(
  client: SiteClient,
  target: ChangeTarget,
  items: PlannedItem[],
): Promise<PlannedItem[]> {
  if (target === "sandbox" || items.length === 0) return items;
  const seen = await planVisibility(
    client,
    items.map((item) => item.change),
  );
  return items.map((item, index) => {
    const answer = seen[index]!;
    return { ...item, visible: answer.visible, places: answer.visible ? placesOf(answer.places, answer.more) : [] };
  });
}

/**
 * The click rule: live, a destructive operation or any item visitors would see waits for the owner's click; so does
 * an item planned on top of a pending one (it can only be written with or after it: lib/changes/chains.ts).
 */
export function needsClick(op: Pick<Operation, "risk">, target: ChangeTarget, items: PlannedItem[]): boolean {
  if (target === "sandbox") return false;
  return op.risk === "destructive" || items.some((item) => item.visible || chainedOn(item.change) !== null);
}

/** Plans a write and asks the site where visitors would see it. */
export async function planCall(
  client: SiteClient,
  op: Operation,
  input: unknown,
  where: { target: ChangeTarget; context?: PlanContext },
): Promise<WritePlan> {
  const plan = await op.plan!(client, input, where.context);
  return { ...plan, items: await seeVisibility(client, where.target, plan.items) };
}

/** A plan that became visible after it was planned: the site's answer marks the item it named. */
function seenAtWrite(plan: WritePlan, error: VisibleItemsError): WritePlan {
  const { index, ref, places, more } = error.visible;
  return {
    ...plan,
    items: plan.items.map((item, at) =>
      at === index || item.ref === ref ? { ...item, visible: true, places: placesOf(places, more) } : item,
    ),
  };
}

export type Pending = {
  status: "pending";
  changeSetId: string;
  reviewUrl: string;
  summary: string;
  items: ChangeItem[];
};

export type Written = { status: "applied"; changeSetId: string; result: OperationResult };

const doorWords = (actor: Actor) =>
  `${actor.door === "mcp" ? "the MCP client" : actor.door === "ability" ? "a WordPress ability" : `the ${actor.door}`}${actor.client ? ` "${actor.client}"` : ""}`;

/** A visible plan waits in its own pending change set, reviewed at its own address; nothing is written. */
export async function holdForClick(actor: Actor, scope: TurnScope, callId: string, plan: WritePlan): Promise<Pending> {
  const { changeSetId, items } = await recordPendingPlan({ ...scope, turnId: callId }, callId, plan.items);
  await auditChange({
    changeSetId,
    siteId: scope.siteId,
    userId: actor.userId,
    action: "write",
    itemIds: items.map((item) => item.id),
    outcome: "pending",
    detail: `Proposed through ${doorWords(actor)}; waits for the owner's approval.`,
  });
  return {
    status: "pending",
    changeSetId,
    reviewUrl: reviewUrl(scope.siteId, changeSetId),
    summary: plan.summary,
    items,
  };
}

/**
 * Writes a plan visitors would not see. Live, the site checks again in the write's lock and writes nothing if
 * any item is visible now: then the plan waits for the click instead, with the places the site named.
 */
export async function writeUnseenOrHold(
  actor: Actor,
  ctx: WriteContext,
  callId: string,
  plan: WritePlan,
): Promise<Written | Pending> {
  try {
    const live = ctx.scope.target === "live";
    const result = await writePlanNow(ctx, callId, plan, {
      requireInvisible: live,
      // The chat's own card says who asked; other doors are named in the audit.
      ...(actor.door === "chat"
        ? {}
        : {
            detail: `Written${live ? "" : " in the sandbox"} through ${doorWords(actor)}${live ? "" : "; waits for the owner's Apply"}.`,
          }),
    });
    const changeSetId = (result.data as { changeSetId?: string } | undefined)?.changeSetId ?? "";
    return { status: "applied", changeSetId, result };
  } catch (error) {
    if (!isVisibleItemsError(error)) throw error;
    return holdForClick(actor, ctx.scope, callId, seenAtWrite(plan, error));
  }
}

export type CallOutcome = { status: "done"; result: OperationResult } | Written | Pending;

/**
 * One call from a door that answers at once (MCP, an ability): reads run; a write is planned, seen, and either
 * held for the click or written now (as writeUnseenOrHold). The chat's door runs the same steps across its
 * approval round trip (lib/agent/tools.ts).
 */
export async function callOperation(call: {
  actor: Actor;
  scope: TurnScope;
  client: SiteClient;
  op: Operation;
  input: unknown;
  callId: string;
}): Promise<CallOutcome> {
  const { actor, scope, client, op, input, callId } = call;
  if (op.run && !op.plan) return { status: "done", result: await op.run(client, input) };
  const plan = await planCall(client, op, input, { target: scope.target });
  if (needsClick(op, scope.target, plan.items)) return holdForClick(actor, scope, callId, plan);
  return writeUnseenOrHold(actor, { scope, client, plans: new Map(), emitChange: () => {} }, callId, plan);
}

export type CallAudit = { finish(outcome: { ok: boolean; summary?: string; error?: string }): Promise<void> };

/**
 * The tool-audit row of one call, written before the site is touched (after a crash it says the call may have
 * happened); `undefined` when it could not be written, and then the door does not call the site.
 */
export async function startCallAudit(row: {
  actor: Actor;
  conversationId: string;
  siteId: string;
  callId: string;
  op: Pick<Operation, "name" | "risk">;
  input: unknown;
}): Promise<CallAudit | undefined> {
  const id = randomUUID();
  const startedAt = now();
  try {
    await insertToolAudit({
      id,
      conversationId: row.conversationId,
      userId: row.actor.userId,
      siteId: row.siteId,
      toolCallId: row.callId,
      operation: row.op.name,
      risk: row.op.risk,
      input: row.input,
      status: "started",
      startedAt,
    });
  } catch (error) {
    log.error("could not write the tool audit row; not calling the site", { error, operation: row.op.name });
    return undefined;
  }
  return {
    async finish(outcome) {
      const finishedAt = now();
      await finishToolAudit({
        id,
        status: outcome.ok ? "ok" : "error",
        resultSummary: outcome.ok ? (outcome.summary ?? null) : null,
        error: outcome.ok ? null : (outcome.error ?? null),
        finishedAt,
        durationMs: finishedAt.getTime() - startedAt.getTime(),
      }).catch((error: unknown) =>
        log.error("could not finish the tool audit row", { error, operation: row.op.name, auditId: id }),
      );
    },
  };
}

/** A call that never reached the site (refused by a rule, or invalid), in the tool audit. */
export async function auditRefusedCall(row: {
  actor: Actor;
  conversationId: string;
  siteId: string;
  callId: string;
  op: { name: string; risk?: string };
  input: unknown;
  status: "refused" | "invalid";
  error: string;
}): Promise<void> {
  const at = now();
  try {
    await insertToolAudit({
      id: randomUUID(),
      conversationId: row.conversationId,
      userId: row.actor.userId,
      siteId: row.siteId,
      toolCallId: row.callId,
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
