/**
 * The WordPress abilities door (docs/abilities.md): a site's own signed call (`POST /sites/plugin/calls`) made by
 * the plugin when a WordPress user (or an AI tool acting for one) runs a proposing ability. A protocol adapter only:
 * the site is authenticated by lib/sites/plugin-calls.ts, the operation must be one the ability door offers and the
 * site allows, and the one use case (lib/agent/call-operation.ts) plans it, asks the site where visitors would see
 * it and applies the one click rule, with `door: "ability"` in the audit.
 */
import { randomUUID } from "node:crypto";
import {
  type Actor,
  auditRefusedCall,
  callableOperations,
  callOperation,
  reviewUrl,
  startCallAudit,
} from "@/lib/agent/call-operation";
import type { TurnScope } from "@/lib/changes/change-sets";
import { now } from "@/lib/clock";
import { AppError } from "@/lib/errors";
import { authenticatePluginCall, type PluginCall } from "@/lib/sites/plugin-calls";
import { siteClientFor } from "@/lib/sites/sites";
import type { Site } from "@/lib/db/schema";

/** What the plugin's ability returns: the pending change set, or (nothing visible) the set written at once. */
export type AbilityAnswer = { status: "pending" | "applied"; changeSetId: string; reviewUrl: string; summary: string };

/** The site owner's account answers for the site; the WordPress user is named as the door's client. */
const actorOf = (site: Site, call: PluginCall): Actor => ({
  userId: site.userId,
  door: "ability",
  client: `${call.actor.name || call.actor.login} (WordPress user ${call.actor.wpUserId})`,
});

/** One site's ability calls gather in one conversation, one turn a day (as an MCP connection's do). */
const scopeOf = (site: Site): TurnScope => ({
  userId: site.userId,
  siteId: site.id,
  conversationId: `ability:${site.id}`,
  turnId: `ability:${site.id}:${now().toISOString().slice(0, 10)}`,
  target: "live",
});

function allowedOperation(site: Site, call: PluginCall) {
  const op = callableOperations({ door: "ability", site }).find((candidate) => candidate.name === call.operation);
  if (!op || op.risk === "read" || op.startsJob) {
    throw new AppError(
      "operation_not_allowed",
      op?.risk === "read"
        ? "Reads are answered by the site itself; only changes come to Sitewright."
        : `This site's Sitewright does not offer ${call.operation} to WordPress abilities.`,
    );
  }
  return op;
}

/** Authenticates the site's call, then plans and holds (or writes, when nothing is visible) through the use case. */
export async function callFromAbility(headers: Headers, rawBody: string): Promise<AbilityAnswer> {
  const { site, call } = await authenticatePluginCall(headers, rawBody);
  const actor = actorOf(site, call);
  const scope = scopeOf(site);
  const callId = `ability_${randomUUID()}`;
  const op = allowedOperation(site, call);
  const parsed = op.input.safeParse(call.input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const error = `${issue?.path.join(".") || "input"}: ${issue?.message ?? "not valid"}`;
    await auditRefusedCall({ actor, ...scope, callId, op, input: call.input, status: "invalid", error });
    throw new AppError("invalid_input", error);
  }
  const audit = await startCallAudit({ actor, ...scope, callId, op, input: parsed.data });
  if (!audit)
    throw new AppError("store_unavailable", "Sitewright could not record the call, so it did not touch the site.");
  try {
    const client = siteClientFor(site);
    const outcome = await callOperation({ actor, scope, client, op, input: parsed.data, callId });
    if (outcome.status === "done") throw new AppError("operation_not_allowed", "Only changes come to Sitewright.");
    const summary = outcome.status === "pending" ? outcome.summary : outcome.result.summary;
    await audit.finish({ ok: true, summary });
    return {
      status: outcome.status,
      changeSetId: outcome.changeSetId,
      reviewUrl: reviewUrl(site.id, outcome.changeSetId),
      summary,
    };
  } catch (error) {
    await audit.finish({ ok: false, error: error instanceof Error ? error.message : String(error) });
    throw error;
  }
}
