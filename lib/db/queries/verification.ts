/** The look at the live site recorded on a change set (docs/verification.md). */
import { eq } from "drizzle-orm";
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
