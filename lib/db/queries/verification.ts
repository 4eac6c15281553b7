/** The look at the live site recorded on a change set (docs/verification.md). */
import { and, desc, eq } from "drizzle-orm";
import { getDb } from "../index";
import { type ChangeSetVerification, changeSets } from "../schema";

/** Records what the look found (or `null`: nothing a visitor sees to look at). */
export async function setChangeSetVerification(input: {
  id: string;
  verification: ChangeSetVerification | null;
}): Promise<void> {
  const db = await getDb();
  await db.update(changeSets).set({ verification: input.verification }).where(eq(changeSets.id, input.id));
}

/** The conversation's most recent live change set (the one a "not visible" look would be about). */
export async function findLatestLiveChangeSet(input: { conversationId: string; userId: string }) {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(changeSets)
    .where(
      and(
        eq(changeSets.conversationId, input.conversationId),
        eq(changeSets.userId, input.userId),
        eq(changeSets.target, "live"),
      ),
    )
    .orderBy(desc(changeSets.updatedAt))
    .limit(1);
  return row;
}
