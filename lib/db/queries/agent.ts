/** The chat agent's data: conversations, their messages, the tool-call audit and approvals. */
import { and, asc, eq, gt, sql } from "drizzle-orm";
import { getDb } from "../index";
import {
  conversations,
  messages,
  toolApprovals,
  toolAudit,
  type ApprovalStatus,
  type Conversation,
  type Message,
  type ToolApproval,
  type ToolAudit,
  type ToolAuditStatus,
} from "../schema";

// ---------------------------------------------------------------- conversations and messages

export async function insertConversation(input: {
  id: string;
  userId: string;
  siteId: string;
  title: string;
  now: Date;
}): Promise<Conversation> {
  const db = await getDb();
  const [row] = await db.insert(conversations).values(conversationRow(input)).returning();
  return row!;
}

type NewConversation = { id: string; userId: string; siteId: string; title: string; now: Date };

const conversationRow = (input: NewConversation) => ({
  id: input.id,
  userId: input.userId,
  siteId: input.siteId,
  title: input.title,
  createdAt: input.now,
  updatedAt: input.now,
});

/**
 * A conversation with a fixed id, made the first time it is needed (an MCP connection's rehearsal on one site,
 * lib/mcp/sandbox.ts): concurrent first calls make one row.
 */
export async function ensureConversation(input: {
  id: string;
  userId: string;
  siteId: string;
  title: string;
  now: Date;
}): Promise<void> {
  const db = await getDb();
  await db.insert(conversations).values(conversationRow(input)).onConflictDoNothing({ target: conversations.id });
}

/** The conversation if it is this user's and about this site; otherwise undefined (never says which). */
export async function findConversation({
  id,
  userId,
  siteId,
}: {
  id: string;
  userId: string;
  siteId: string;
}): Promise<Conversation | undefined> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(conversations)
    .where(and(eq(conversations.id, id), eq(conversations.userId, userId), eq(conversations.siteId, siteId)))
    .limit(1);
  return row;
}

export async function listMessages({ conversationId }: { conversationId: string }): Promise<Message[]> {
  const db = await getDb();
  return db.select().from(messages).where(eq(messages.conversationId, conversationId)).orderBy(asc(messages.seq));
}

/**
 * Saves a conversation's messages after a turn, in one transaction: new messages are inserted, changed ones
 * (the assistant message a continued turn extended) updated, in the given order.
 */
export async function saveMessages(input: {
  conversationId: string;
  messages: Array<{ id: string; role: "user" | "assistant" | "system"; parts: unknown[]; metadata?: unknown }>;
  now: Date;
}): Promise<void> {
  const db = await getDb();
  await db.transaction(async (tx) => {
    for (const [seq, message] of input.messages.entries()) {
      await tx
        .insert(messages)
        .values({
          id: message.id,
          conversationId: input.conversationId,
          seq,
          role: message.role,
          parts: message.parts,
          metadata: message.metadata ?? null,
          createdAt: input.now,
        })
        .onConflictDoUpdate({
          target: messages.id,
          set: { seq, parts: message.parts, metadata: message.metadata ?? null },
          // A message id from another conversation is never overwritten.
          setWhere: eq(messages.conversationId, input.conversationId),
        });
    }
    await tx.update(conversations).set({ updatedAt: input.now }).where(eq(conversations.id, input.conversationId));
  });
}

// ---------------------------------------------------------------- tool-call audit

export type ToolAuditInsert = {
  id: string;
  conversationId: string;
  userId: string;
  siteId: string;
  toolCallId: string;
  operation: string;
  risk?: string | null;
  input?: unknown;
  status: ToolAuditStatus;
  resultSummary?: string | null;
  error?: string | null;
  startedAt: Date;
  finishedAt?: Date | null;
  durationMs?: number | null;
};

export async function insertToolAudit(row: ToolAuditInsert): Promise<void> {
  const db = await getDb();
  await db.insert(toolAudit).values({ ...row, input: row.input ?? null });
}

export async function finishToolAudit(input: {
  id: string;
  status: Extract<ToolAuditStatus, "ok" | "error">;
  resultSummary?: string | null;
  error?: string | null;
  finishedAt: Date;
  durationMs: number;
}): Promise<void> {
  const db = await getDb();
  await db
    .update(toolAudit)
    .set({
      status: input.status,
      resultSummary: input.resultSummary ?? null,
      error: input.error ?? null,
      finishedAt: input.finishedAt,
      durationMs: input.durationMs,
    })
    .where(eq(toolAudit.id, input.id));
}

export async function listToolAudit(filter: {
  conversationId?: string;
  siteId?: string;
  limit?: number;
}): Promise<ToolAudit[]> {
  const db = await getDb();
  const where = and(
    filter.conversationId ? eq(toolAudit.conversationId, filter.conversationId) : undefined,
    filter.siteId ? eq(toolAudit.siteId, filter.siteId) : undefined,
  );
  return db
    .select()
    .from(toolAudit)
    .where(where)
    .orderBy(asc(toolAudit.startedAt), asc(toolAudit.id))
    .limit(filter.limit ?? 500);
}

// ---------------------------------------------------------------- approvals

/** Records that a tool call waits for approval; asking again for the same call and arguments changes nothing. */
export async function insertApprovalRequest(input: {
  id: string;
  conversationId: string;
  userId: string;
  siteId: string;
  toolCallId: string;
  operation: string;
  inputHash: string;
  input: unknown;
  requestedAt: Date;
  expiresAt: Date;
}): Promise<void> {
  const db = await getDb();
  await db
    .insert(toolApprovals)
    .values({ ...input, input: input.input ?? null, status: "pending" })
    .onConflictDoNothing({ target: [toolApprovals.conversationId, toolApprovals.toolCallId, toolApprovals.inputHash] });
}

export async function findApprovalRequest(input: {
  conversationId: string;
  userId: string;
  toolCallId: string;
  inputHash: string;
}): Promise<ToolApproval | undefined> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(toolApprovals)
    .where(
      and(
        eq(toolApprovals.conversationId, input.conversationId),
        eq(toolApprovals.userId, input.userId),
        eq(toolApprovals.toolCallId, input.toolCallId),
        eq(toolApprovals.inputHash, input.inputHash),
      ),
    )
    .limit(1);
  return row;
}

/**
 * Records the user's answer to a pending request. Approving only works before the expiry (decided in the same
 * statement); returns the status the row ended with, or undefined when it was not pending.
 */
export async function decideApprovalRequest(input: {
  id: string;
  userId: string;
  approved: boolean;
  now: Date;
}): Promise<ApprovalStatus | undefined> {
  const db = await getDb();
  const [row] = await db
    .update(toolApprovals)
    .set({
      status: input.approved
        ? sql<ApprovalStatus>`case when ${toolApprovals.expiresAt} > ${input.now.toISOString()}::timestamptz then 'approved' else 'expired' end`
        : "denied",
      decidedAt: input.now,
    })
    .where(
      and(eq(toolApprovals.id, input.id), eq(toolApprovals.userId, input.userId), eq(toolApprovals.status, "pending")),
    )
    .returning({ status: toolApprovals.status });
  return row?.status;
}

/**
 * Uses an approval: exactly once, only by its user, for the same tool call, operation and argument hash, and
 * only before it expires. One statement, so two concurrent runs cannot both use it.
 */
export async function consumeApproval(input: {
  conversationId: string;
  userId: string;
  toolCallId: string;
  operation: string;
  inputHash: string;
  now: Date;
}): Promise<boolean> {
  const db = await getDb();
  const rows = await db
    .update(toolApprovals)
    .set({ status: "used", usedAt: input.now })
    .where(
      and(
        eq(toolApprovals.conversationId, input.conversationId),
        eq(toolApprovals.userId, input.userId),
        eq(toolApprovals.toolCallId, input.toolCallId),
        eq(toolApprovals.operation, input.operation),
        eq(toolApprovals.inputHash, input.inputHash),
        eq(toolApprovals.status, "approved"),
        gt(toolApprovals.expiresAt, input.now),
      ),
    )
    .returning({ id: toolApprovals.id });
  return rows.length === 1;
}
