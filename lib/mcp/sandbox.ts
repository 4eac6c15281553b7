/**
 * Sandbox mode over MCP (docs/mcp.md, "Sandbox mode"): a call with `mode: "sandbox"` works in a sandbox copy of the
 * site, the chat's rehearsal machinery (one sandbox per conversation, lib/workflows/chat-turn.ts). MCP is stateless,
 * so the state lives in the data layer: each connection (OAuth grant) has one rehearsal conversation per site,
 * `mcp:<grant id>:<site id>`, whose sandbox every sandbox-mode call of that connection on that site uses, and whose
 * writes gather in one sandbox change set until the owner applies or discards it on the review page.
 */
import type { TurnScope } from "@/lib/changes/change-sets";
import { now } from "@/lib/clock";
import { countClosedRehearsals, ensureConversation } from "@/lib/db/queries";
import type { OAuthGrant, Site } from "@/lib/db/schema";
import type { SiteClient } from "@/lib/sites/types";
import type { RehearsalSource } from "@/lib/workflows/chat-turn";

export type McpMode = "live" | "sandbox";

/** The `mode` argument every site tool of a proposing connection takes. */
export const MODE_PROPERTY = {
  type: "string",
  enum: ["live", "sandbox"],
  default: "live",
  description:
    'Where this call works. "live" (default): the live site; visible writes wait as their own pending change set for the owner\'s approval. "sandbox": Sitewright\'s copy of the site for this connection; reads and writes go to the copy only, and all sandbox writes gather in one change set that the owner previews and applies with one click on the review page. Use one mode for a whole task: ids read in one mode are for calls in that mode.',
} as const;

/** The conversation a connection rehearses in on one site. */
export const sandboxConversationOf = (grant: OAuthGrant, siteId: string) => `mcp:${grant.id}:${siteId}`;

export type McpRehearsal = { sandboxId: string; client: SiteClient; scope: TurnScope };

/**
 * The connection's sandbox copy of the site (made on its first sandbox-mode call, copied again when the live site
 * changed and nothing waits for Apply) and where its writes are recorded: the sandbox's change set that is still
 * pending, or a new one once the owner applied or discarded the last.
 */
export async function mcpRehearsal(input: {
  grant: OAuthGrant;
  clientName: string;
  site: Site;
  live: SiteClient;
  rehearsal: RehearsalSource;
}): Promise<McpRehearsal> {
  const conversationId = sandboxConversationOf(input.grant, input.site.id);
  await ensureConversation({
    id: conversationId,
    userId: input.grant.userId,
    siteId: input.site.id,
    title: `${input.clientName} (MCP)`,
    now: now(),
  });
  const { sandboxId, client } = await input.rehearsal({
    userId: input.grant.userId,
    siteId: input.site.id,
    conversationId,
    live: input.live,
  });
  const closed = await countClosedRehearsals({ conversationId, sandboxId });
  return {
    sandboxId,
    client,
    scope: {
      userId: input.grant.userId,
      siteId: input.site.id,
      conversationId,
      turnId: `${sandboxId}:${closed}`,
      target: "sandbox",
      sandboxId,
    },
  };
}
