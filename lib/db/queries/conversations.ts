/**
 * Conversations as the chat page and the dashboard see them: they follow the site's address, not one pairing.
 * Re-pairing a site makes a new `sites` row, so "this site's conversations" are those of every row of the same
 * user and normalized URL (revoked rows stay in the table for exactly this reason).
 */
import { and, desc, eq, max, notLike } from "drizzle-orm";
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

/** Every pairing row of a user, revoked ones included (the dashboard groups them by URL). */
export async function listAllSiteRowsForUser({ userId }: { userId: string }): Promise<Site[]> {
  const db = await getDb();
  return db.select().from(sites).where(eq(sites.userId, userId)).orderBy(desc(sites.createdAt));
}
