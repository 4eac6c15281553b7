import { and, eq, lt, lte, ne, or, sql } from "drizzle-orm";
import { findCause } from "@/lib/errors";
import { getDb } from "../index";
import { changeAudit, rateLimits, sessions, toolAudit, users, type Session, type User } from "../schema";
import { type EndedConnection, revokeGrantsForUserIn } from "./oauth";

const isUniqueViolation = (error: unknown) =>
  findCause(error, (link) => (link as { code?: unknown }).code === "23505") !== undefined;

/** Inserts a user; returns undefined when the (normalized) email is taken. */
export async function insertUser(input: {
  id: string;
  email: string;
  name: string | null;
  passwordHash: string;
  createdAt: Date;
}): Promise<User | undefined> {
  const db = await getDb();
  try {
    const [row] = await db
      .insert(users)
      .values({ ...input, emailNormalized: input.email.toLowerCase() })
      .returning();
    return row;
  } catch (error) {
    if (isUniqueViolation(error)) return undefined;
    throw error;
  }
}

export async function findUserByEmail({ email }: { email: string }): Promise<User | undefined> {
  const db = await getDb();
  const [row] = await db.select().from(users).where(eq(users.emailNormalized, email.toLowerCase())).limit(1);
  return row;
}

export async function findUserById({ id }: { id: string }): Promise<User | undefined> {
  const db = await getDb();
  const [row] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return row;
}

export async function updateUserPasswordHash({ id, passwordHash }: { id: string; passwordHash: string }) {
  const db = await getDb();
  await db.update(users).set({ passwordHash }).where(eq(users.id, id));
}

export async function insertSession(input: Session) {
  const db = await getDb();
  await db.insert(sessions).values(input);
}

export async function findSessionWithUser({ idHash }: { idHash: string }) {
  const db = await getDb();
  const [row] = await db
    .select({ session: sessions, user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(eq(sessions.idHash, idHash))
    .limit(1);
  return row;
}

export async function touchSession({ idHash, lastSeenAt }: { idHash: string; lastSeenAt: Date }) {
  const db = await getDb();
  await db.update(sessions).set({ lastSeenAt }).where(eq(sessions.idHash, idHash));
}

export async function deleteSession({ idHash }: { idHash: string }) {
  const db = await getDb();
  await db.delete(sessions).where(eq(sessions.idHash, idHash));
}

export async function deleteSessionsIdleOrExpired({ now, idleBefore }: { now: Date; idleBefore: Date }) {
  const db = await getDb();
  const deleted = await db
    .delete(sessions)
    .where(or(lte(sessions.expiresAt, now), lte(sessions.lastSeenAt, idleBefore)))
    .returning({ idHash: sessions.idHash });
  return deleted.length;
}

/**
 * One atomic statement: bump the counter for (key, window) and return it with the previous window's count, which a
 * sliding window weighs in.
 */
export async function incrementRateLimit({
  key,
  windowStart,
  previousWindowStart,
}: {
  key: string;
  windowStart: number;
  previousWindowStart: number;
}): Promise<{ current: number; previous: number }> {
  const db = await getDb();
  const rows = await db.execute<{ current: number | string; previous: number | string }>(sql`
    with bumped as (
      insert into ${rateLimits} (key, window_start, count) values (${key}, ${windowStart}, 1)
      on conflict (key, window_start) do update set count = ${rateLimits}.count + 1
      returning count
    )
    select (select count from bumped) as current,
      coalesce((select count from ${rateLimits} where key = ${key} and window_start = ${previousWindowStart}), 0)
        as previous`);
  const row = (Array.isArray(rows) ? rows[0] : (rows as { rows: unknown[] }).rows[0]) as
    | { current: number | string; previous: number | string }
    | undefined;
  return { current: Number(row?.current ?? 1), previous: Number(row?.previous ?? 0) };
}

/**
 * One attempt counted in several buckets in order, in ONE statement (what several `incrementRateLimit` calls did in
 * as many round trips): a bucket is bumped only while every bucket before it still allows the attempt, its count
 * plus the previous window's weighted by `previousWeight` being at most its limit. Each bucket's counts come back;
 * `current` is 0 for a bucket the attempt never reached.
 */
export async function incrementRateLimitChain({
  buckets,
  windowStart,
  previousWindowStart,
  previousWeight,
}: {
  buckets: Array<{ key: string; limit: number }>;
  windowStart: number;
  previousWindowStart: number;
  previousWeight: number;
}): Promise<Array<{ current: number; previous: number }>> {
  const db = await getDb();
  const steps = buckets.map(({ key, limit }, i) => {
    const reached = i === 0 ? sql`true` : sql.raw(`(select ok from ok${i - 1})`);
    return sql`
      bumped${sql.raw(String(i))} as (
        insert into ${rateLimits} (key, window_start, count) select ${key}, ${windowStart}, 1 where ${reached}
        on conflict (key, window_start) do update set count = ${rateLimits}.count + 1
        returning count
      ),
      counts${sql.raw(String(i))} as (
        select coalesce((select count from ${sql.raw(`bumped${i}`)}), 0) as current,
          coalesce((select count from ${rateLimits} where key = ${key} and window_start = ${previousWindowStart}), 0)
            as previous
      ),
      ok${sql.raw(String(i))} as (
        select ${reached} and current + previous * ${previousWeight}::double precision <= ${limit} as ok
        from ${sql.raw(`counts${i}`)}
      )`;
  });
  const columns = buckets.map((_, i) =>
    sql.raw(`(select current from counts${i}) as current${i}, (select previous from counts${i}) as previous${i}`),
  );
  const rows = await db.execute<Record<string, number | string>>(
    sql`with ${sql.join(steps, sql`,`)} select ${sql.join(columns, sql`, `)}`,
  );
  const row = (Array.isArray(rows) ? rows[0] : (rows as { rows: unknown[] }).rows[0]) as
    | Record<string, number | string>
    | undefined;
  return buckets.map((_, i) => ({
    current: Number(row?.[`current${i}`] ?? 0),
    previous: Number(row?.[`previous${i}`] ?? 0),
  }));
}

export async function deleteRateLimitsBefore({ windowStart }: { windowStart: number }) {
  const db = await getDb();
  await db.delete(rateLimits).where(lt(rateLimits.windowStart, windowStart));
}

export async function pingStore() {
  const db = await getDb();
  await db.execute(sql`select 1`);
}

// ---------------------------------------------------------------- account settings

/**
 * Changes a user's name and email (a new address loses its verification); returns undefined when the (normalized)
 * email belongs to another account.
 */
export async function updateUserProfile({
  id,
  name,
  email,
}: {
  id: string;
  name: string | null;
  email: string;
}): Promise<User | undefined> {
  const db = await getDb();
  try {
    const [row] = await db
      .update(users)
      .set({
        name,
        email,
        emailNormalized: email.toLowerCase(),
        // A new address is unverified until its own link is opened; a change of case only is the same address.
        emailVerifiedAt: sql`case when ${users.emailNormalized} = ${email.toLowerCase()} then ${users.emailVerifiedAt} end`,
      })
      .where(eq(users.id, id))
      .returning();
    return row;
  } catch (error) {
    if (isUniqueViolation(error)) return undefined;
    throw error;
  }
}

/**
 * Ends every way into the account but one login session (`keepIdHash`, when given), in one transaction: the other
 * login sessions, and every OAuth grant with its access and refresh tokens (SECURITY.md, "Account recovery ends every
 * door"); with `passwordHash`, the new password is set in the same transaction. Returns how many sessions ended and
 * the applications that were connected.
 */
export async function endAccountAccess(input: {
  userId: string;
  now: Date;
  keepIdHash?: string;
  passwordHash?: string;
}): Promise<{ signedOut: number; applications: EndedConnection[] }> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    if (input.passwordHash) {
      await tx.update(users).set({ passwordHash: input.passwordHash }).where(eq(users.id, input.userId));
    }
    const mine = eq(sessions.userId, input.userId);
    const deleted = await tx
      .delete(sessions)
      .where(input.keepIdHash ? and(mine, ne(sessions.idHash, input.keepIdHash)) : mine)
      .returning({ idHash: sessions.idHash });
    const applications = await revokeGrantsForUserIn(tx, { userId: input.userId, now: input.now });
    return { signedOut: deleted.length, applications };
  });
}

/**
 * Deletes a user and everything that is theirs, in one transaction: the audit rows (kept apart from any foreign
 * key so they outlive a pairing) explicitly, everything else through the tables' `on delete cascade`.
 */
export async function deleteUserAndData({ id }: { id: string }) {
  const db = await getDb();
  await db.transaction(async (tx) => {
    // Rows without a foreign key on purpose (they outlive a site's pairing), so they go by hand; the rest cascade.
    await tx.delete(toolAudit).where(eq(toolAudit.userId, id));
    await tx.delete(changeAudit).where(eq(changeAudit.userId, id));
    await tx.delete(users).where(eq(users.id, id));
  });
}
