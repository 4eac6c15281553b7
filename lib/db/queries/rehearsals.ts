/**
 * Rehearsals (sandbox change sets) as Apply and Discard claim them: one transaction with the rows locked, so a double
 * click, parallel applies or an Apply racing a Discard change the live site at most once (docs/rehearsal.md).
 */
import { and, asc, count, eq, inArray, isNull, ne, sql } from "drizzle-orm";
import { getDb } from "../index";
import { statusFromItems } from "./change-set-status";
import { type ChangeItem, type ChangeSetStatus, changeItems, changeSets } from "../schema";

const WAITING: ChangeSetStatus[] = ["pending", "partially_applied"];

/**
 * Claims every set for an Apply (`applying`), all or none: each must be a rehearsal of this user that still waits
 * for Apply. Returns each set's status before the claim (to put back if the Apply fails), or undefined.
 */
export async function claimRehearsalsForApply(input: {
  ids: string[];
  userId: string;
  now: Date;
}): Promise<Map<string, ChangeSetStatus> | undefined> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const rows = await tx
      .select({ id: changeSets.id, status: changeSets.status })
      .from(changeSets)
      .where(
        and(
          inArray(changeSets.id, input.ids),
          eq(changeSets.userId, input.userId),
          eq(changeSets.target, "sandbox"),
          inArray(changeSets.status, WAITING),
        ),
      )
      .for("update");
    if (rows.length !== new Set(input.ids).size) return undefined;
    await tx
      .update(changeSets)
      .set({ status: "applying", updatedAt: input.now })
      .where(inArray(changeSets.id, input.ids));
    return new Map(rows.map((row) => [row.id, row.status]));
  });
}

/** Puts claimed sets back as they were (the Apply wrote nothing). */
export async function releaseRehearsals(input: { previous: Map<string, ChangeSetStatus>; now: Date }): Promise<void> {
  const db = await getDb();
  for (const [id, status] of input.previous) {
    await db
      .update(changeSets)
      .set({ status, updatedAt: input.now })
      .where(and(eq(changeSets.id, id), eq(changeSets.status, "applying")));
  }
}

/** An Apply wrote these items in the live change set `liveChangeSetId`; each claimed set is applied or partly. */
export async function finishRehearsalApply(input: {
  itemIds: string[];
  liveChangeSetId: string;
  sets: string[];
  now: Date;
}): Promise<void> {
  const db = await getDb();
  await db.transaction(async (tx) => {
    if (input.itemIds.length > 0) {
      await tx
        .update(changeItems)
        .set({ madeLiveBy: input.liveChangeSetId })
        .where(and(inArray(changeItems.id, input.itemIds), isNull(changeItems.madeLiveBy)));
    }
    if (input.sets.length === 0) return;
    // The same status rule as every other set (one statement over the items just marked): `applied` once all are live.
    const next = statusFromItems(tx, input.sets, ["discarded"]);
    await tx
      .update(changeSets)
      .set({ status: sql`${next.status}`, appliedAt: input.now, updatedAt: input.now })
      .from(next)
      .where(and(eq(changeSets.id, next.id), eq(changeSets.status, "applying")));
  });
}

/** Discards a rehearsal that still waits for Apply, in one statement; undefined when it was not waiting any more. */
export async function discardRehearsalSet(input: { id: string; userId: string; now: Date }) {
  const db = await getDb();
  const [row] = await db
    .update(changeSets)
    .set({ status: "discarded", updatedAt: input.now })
    .where(
      and(
        eq(changeSets.id, input.id),
        eq(changeSets.userId, input.userId),
        eq(changeSets.target, "sandbox"),
        inArray(changeSets.status, WAITING),
      ),
    )
    .returning();
  return row;
}

export type SandboxItem = ChangeItem & { setStatus: ChangeSetStatus };

/** Every item written in a sandbox, across its change sets, in the order they were written. */
export async function listSandboxItems(input: { sandboxId: string; userId: string }): Promise<SandboxItem[]> {
  const db = await getDb();
  const rows = await db
    .select({ item: changeItems, setStatus: changeSets.status })
    .from(changeItems)
    .innerJoin(changeSets, eq(changeSets.id, changeItems.changeSetId))
    .where(
      and(
        eq(changeSets.sandboxId, input.sandboxId),
        eq(changeSets.userId, input.userId),
        eq(changeSets.target, "sandbox"),
      ),
    )
    .orderBy(asc(changeItems.appliedAt), asc(changeItems.createdAt), asc(changeItems.seq));
  return rows.map((row) => ({ ...row.item, setStatus: row.setStatus }));
}

/**
 * How many of a conversation's rehearsals in one sandbox no longer take writes (applied, being applied, discarded):
 * an MCP connection's sandbox writes gather in one set until the owner applies or discards it, then start the next.
 */
export async function countClosedRehearsals(input: { conversationId: string; sandboxId: string }): Promise<number> {
  const db = await getDb();
  const [row] = await db
    .select({ closed: count() })
    .from(changeSets)
    .where(
      and(
        eq(changeSets.conversationId, input.conversationId),
        eq(changeSets.sandboxId, input.sandboxId),
        eq(changeSets.target, "sandbox"),
        ne(changeSets.status, "pending"),
      ),
    );
  return row?.closed ?? 0;
}
