/**
 * Links mailed to a person (password reset, email verification), stored as SHA-256 hashes. Using a token is one
 * DELETE … RETURNING: of two parallel uses exactly one gets the row.
 */
import { and, eq, lte, sql } from "drizzle-orm";
import { getDb } from "../index";
import { accountTokens, sessions, users, type AccountToken, type AccountTokenPurpose, type User } from "../schema";
import { type EndedConnection, revokeGrantsForUserIn } from "./oauth";

/** Stores a new token and deletes the user's earlier ones of that purpose, in one transaction. */
export async function replaceAccountToken(input: AccountToken) {
  const db = await getDb();
  await db.transaction(async (tx) => {
    await tx
      .delete(accountTokens)
      .where(and(eq(accountTokens.userId, input.userId), eq(accountTokens.purpose, input.purpose)));
    await tx.insert(accountTokens).values(input);
  });
}

/** Takes the token out of the store (single use): the row when it was there, expired or not; else undefined. */
export async function consumeAccountToken({
  tokenHash,
  purpose,
}: {
  tokenHash: string;
  purpose: AccountTokenPurpose;
}): Promise<AccountToken | undefined> {
  const db = await getDb();
  const [row] = await db
    .delete(accountTokens)
    .where(and(eq(accountTokens.tokenHash, tokenHash), eq(accountTokens.purpose, purpose)))
    .returning();
  return row;
}

/** Forgets a user's tokens: of one purpose, or all of them (the email changed, so no old link may act). */
export async function deleteAccountTokensForUser({
  userId,
  purpose,
}: {
  userId: string;
  purpose?: AccountTokenPurpose;
}) {
  const db = await getDb();
  await db
    .delete(accountTokens)
    .where(
      purpose
        ? and(eq(accountTokens.userId, userId), eq(accountTokens.purpose, purpose))
        : eq(accountTokens.userId, userId),
    );
}

/**
 * A password reset's writes, in one transaction: the new hash, every session, every OAuth grant with its tokens and
 * every other reset link of the user gone. The link proved the mailbox, so the address counts as verified too (when it is still the one mailed).
 */
export async function replacePasswordAndSignOut(input: {
  userId: string;
  passwordHash: string;
  mailedTo: string;
  at: Date;
}): Promise<{ user: User | undefined; signedOut: number; applications: EndedConnection[] }> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [user] = await tx
      .update(users)
      .set({
        passwordHash: input.passwordHash,
        emailVerifiedAt: sql`case when ${users.emailNormalized} = ${input.mailedTo}
          then coalesce(${users.emailVerifiedAt}, ${input.at.toISOString()}::timestamptz) else ${users.emailVerifiedAt} end`,
      })
      .where(eq(users.id, input.userId))
      .returning();
    const signedOut = await tx
      .delete(sessions)
      .where(eq(sessions.userId, input.userId))
      .returning({ id: sessions.idHash });
    await tx
      .delete(accountTokens)
      .where(and(eq(accountTokens.userId, input.userId), eq(accountTokens.purpose, "password_reset")));
    const applications = await revokeGrantsForUserIn(tx, { userId: input.userId, now: input.at });
    return { user, signedOut: signedOut.length, applications };
  });
}

/** Marks the address verified, only while it is still the one the link was sent to; the user, or undefined. */
export async function markEmailVerified({
  userId,
  email,
  at,
}: {
  userId: string;
  email: string;
  at: Date;
}): Promise<User | undefined> {
  const db = await getDb();
  const [row] = await db
    .update(users)
    .set({ emailVerifiedAt: sql`coalesce(${users.emailVerifiedAt}, ${at.toISOString()}::timestamptz)` })
    .where(and(eq(users.id, userId), eq(users.emailNormalized, email)))
    .returning();
  return row;
}

export async function deleteExpiredAccountTokens({ now }: { now: Date }) {
  const db = await getDb();
  const deleted = await db
    .delete(accountTokens)
    .where(lte(accountTokens.expiresAt, now))
    .returning({ tokenHash: accountTokens.tokenHash });
  return deleted.length;
}
