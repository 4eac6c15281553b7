/**
 * Conversations as the chat page and the dashboard see them: they follow the site's address, not one pairing.
 * Re-pairing keeps the site's row (docs/api.md) and migration 0011 folded the rows earlier pairings made, so a
 * site's conversations share its id; matching every row of the same user and normalized URL stays as a safety net.
 */
import { and, desc, eq, isNull, max, ne, notLike, or } from "drizzle-orm";
import { getDb } from "../index";
import { conversations, sites, type Conversation, type Site } from "../schema";

/** MCP connections' rehearsal conversations (`mcp:…`, lib/mcp/sandbox.ts) hold no messages: they are not chats. */
const isChat = notLike(conversations.id, "mcp:%");

export async function listConversationsForSiteUrl({
  userId,
  url,
  limit = 50,
}: {
  userId: string;
  url: string;
  limit?: number;
}): Promise<Conversation[]> {
  const db = await getDb();
  const rows = await db
    .select({ conversation: conversations })
    .from(conversations)
    .innerJoin(sites, eq(sites.id, conversations.siteId))
    .where(and(eq(conversations.userId, userId), eq(sites.userId, userId), eq(sites.url, url), isChat))
    .orderBy(desc(conversations.updatedAt))
    .limit(limit);
  return rows.map((row) => row.conversation);
}

/** The conversation if it is this user's and about a pairing of this URL; otherwise undefined (never says which). */
export async function findConversationForSiteUrl({
  id,
  userId,
  url,
}: {
  id: string;
  userId: string;
  url: string;
}): Promise<Conversation | undefined> {
  const db = await getDb();
  const [row] = await db
    .select({ conversation: conversations })
    .from(conversations)
    .innerJoin(sites, eq(sites.id, conversations.siteId))
    .where(
      and(eq(conversations.id, id), eq(conversations.userId, userId), eq(sites.userId, userId), eq(sites.url, url)),
    )
    .limit(1);
  return row?.conversation;
}

/** The newest chat activity per site URL of a user, for the dashboard's "last activity". */
export async function lastConversationActivityByUrl({ userId }: { userId: string }): Promise<Map<string, Date>> {
  const db = await getDb();
  const rows = await db
    .select({ url: sites.url, at: max(conversations.updatedAt) })
    .from(conversations)
    .innerJoin(sites, eq(sites.id, conversations.siteId))
    .where(and(eq(conversations.userId, userId), eq(sites.userId, userId), isChat))
    .groupBy(sites.url);
  return new Map(rows.flatMap((row) => (row.at ? [[row.url, row.at] as const] : [])));
}

/**
 * Every pairing row of a user, revoked ones included (the dashboard groups them by URL), except re-pairings spent
 * on their site: that site stands for them.
 */
export async function listAllSiteRowsForUser({ userId }: { userId: string }): Promise<Site[]> {
  const db = await getDb();
  return db
    .select()
    .from(sites)
    .where(and(eq(sites.userId, userId), or(isNull(sites.repairsSiteId), ne(sites.status, "revoked"))))
    .orderBy(desc(sites.createdAt));
}
