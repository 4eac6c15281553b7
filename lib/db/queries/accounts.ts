import { eq, lt, lte, or, sql } from "drizzle-orm";
import { getDb } from "../index";
import { rateLimits, sessions, users, type Session, type User } from "../schema";

const isUniqueViolation = (error: unknown) => {
  for (let e: unknown = error; e; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: string }).code === "23505") return true;
  }
  return false;
};

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

export async function countUsers(): Promise<number> {
  const db = await getDb();
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(users);
  return row?.n ?? 0;
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

/** One atomic statement: bump the counter for (key, window) and return the new count. */
export async function incrementRateLimit({ key, windowStart }: { key: string; windowStart: number }): Promise<number> {
  const db = await getDb();
  const [row] = await db
    .insert(rateLimits)
    .values({ key, windowStart, count: 1 })
    .onConflictDoUpdate({ target: [rateLimits.key, rateLimits.windowStart], set: { count: sql`${rateLimits.count} + 1` } })
    .returning({ count: rateLimits.count });
  return row?.count ?? 1;
}

export async function deleteRateLimitsBefore({ windowStart }: { windowStart: number }) {
  const db = await getDb();
  await db.delete(rateLimits).where(lt(rateLimits.windowStart, windowStart));
}

export async function pingStore() {
  const db = await getDb();
  await db.execute(sql`select 1`);
}

