import { and, desc, eq, inArray, isNotNull, isNull, lt, lte, ne, or, sql } from "drizzle-orm";
import { getDb } from "../index";
import { sites, type Site, type SiteStatus } from "../schema";

/**
 * Supersedes the same user's pending pairing of the URL (never another user's) and inserts the new one, in one
 * transaction serialized per user and URL, so two concurrent starts never collide on the unique index. When the
 * user already has a site for the URL (confirmed once: active, waiting for confirmation again, or disconnected),
 * the new pairing re-pairs that site (`repairsSiteId`); that site is not touched until the code is redeemed.
 */
export async function insertPairing(input: {
  id: string;
  userId: string;
  url: string;
  codeHmac: string;
  codeExpiresAt: Date;
  createdAt: Date;
}) {
  const db = await getDb();
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`sitewright.pairing:${input.userId}:${input.url}`}))`);
    await tx
      .update(sites)
      .set({ status: "expired" })
      .where(and(eq(sites.url, input.url), eq(sites.userId, input.userId), eq(sites.status, "pending")));
    const [existing] = await tx
      .select({ id: sites.id })
      .from(sites)
      .where(siteOfRecord(input))
      .orderBy(sql`(${sites.status} = 'active') desc`, desc(sites.createdAt))
      .limit(1);
    const [row] = await tx
      .insert(sites)
      .values({ ...input, status: "pending", failedAttempts: 0, repairsSiteId: existing?.id ?? null })
      .returning();
    return row!;
  });
}

/** The user's site for a URL: confirmed once, and not a spent re-pairing (those are never confirmed themselves). */
const siteOfRecord = ({ userId, url }: { userId: string; url: string }) =>
  and(eq(sites.userId, userId), eq(sites.url, url), isNotNull(sites.confirmedAt), isNull(sites.repairsSiteId));

/**
 * The single statement that redeems a code: it succeeds only for a pending, unexpired, unlocked pairing of that
 * URL whose code HMAC matches (the newest, should two users' codes ever coincide), so two concurrent redeems of
 * one code give exactly one success. A re-pairing hands the credentials to the site it re-pairs in the same
 * transaction (the old ones are overwritten, so destroyed) and is spent; that site then waits for confirmation.
 */
export async function redeemPendingPairing(input: {
  url: string;
  codeHmac: string;
  now: Date;
  maxAttempts: number;
  restUrl: string;
  pluginVersion: string;
  siteInfo: Record<string, unknown> | null;
  name: string | null;
  pageBuilder: string | null;
  encryptCredentials: (siteId: string) => string;
}): Promise<Site | undefined> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const connection = {
      status: "redeemed" as const,
      restUrl: input.restUrl,
      pluginVersion: input.pluginVersion,
      siteInfo: input.siteInfo,
      name: input.name,
      pageBuilder: input.pageBuilder,
      pairedAt: input.now,
      lastSeenAt: input.now,
    };
    const [row] = await tx
      .update(sites)
      .set(connection)
      .where(
        and(
          eq(
            sites.id,
            sql`(select ${sites.id} from ${sites} where ${sites.url} = ${input.url} and ${sites.status} = 'pending'
              and ${sites.codeHmac} = ${input.codeHmac} order by ${sites.createdAt} desc limit 1)`,
          ),
          eq(sites.status, "pending"),
          eq(sites.codeHmac, input.codeHmac),
          sql`${sites.codeExpiresAt} > ${input.now.toISOString()}`,
          lt(sites.failedAttempts, input.maxAttempts),
        ),
      )
      .returning();
    if (!row) return undefined;
    if (row.repairsSiteId) {
      const [repaired] = await tx
        .update(sites)
        .set({ ...connection, credentials: input.encryptCredentials(row.repairsSiteId), revokedAt: null })
        .where(and(eq(sites.id, row.repairsSiteId), eq(sites.userId, row.userId), eq(sites.url, row.url)))
        .returning();
      if (repaired) {
        await tx.update(sites).set({ status: "revoked", revokedAt: input.now }).where(eq(sites.id, row.id));
        return repaired;
      }
    }
    // Credentials are bound to the row id (AES-GCM associated data), so they are sealed once the id is known.
    const [sealed] = await tx
      .update(sites)
      .set({ credentials: input.encryptCredentials(row.id), repairsSiteId: null })
      .where(eq(sites.id, row.id))
      .returning();
    return sealed;
  });
}

/** The most recent pairing for a URL, whatever its state: tells a failed redeem why it failed. */
export async function findLatestPairingByUrl({ url }: { url: string }): Promise<Site | undefined> {
  const db = await getDb();
  const [row] = await db.select().from(sites).where(eq(sites.url, url)).orderBy(desc(sites.createdAt)).limit(1);
  return row;
}

/** The newest pairing of a URL with this code HMAC, whatever its state: tells a failed redeem why it failed. */
export async function findPairingByUrlAndCode({
  url,
  codeHmac,
}: {
  url: string;
  codeHmac: string;
}): Promise<Site | undefined> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(sites)
    .where(and(eq(sites.url, url), eq(sites.codeHmac, codeHmac)))
    .orderBy(desc(sites.createdAt))
    .limit(1);
  return row;
}

/**
 * Counts one wrong code against every pending, unexpired pairing of the URL, in one statement: a wrong code is a
 * guess at each of their codes, so each pairing sees at most `maxAttempts` guesses however many are pending. The
 * attempt that reaches the limit locks that pairing in the same statement. Returns the pairings it counted.
 */
export async function recordFailedRedeem({ url, now, maxAttempts }: { url: string; now: Date; maxAttempts: number }) {
  const db = await getDb();
  return db
    .update(sites)
    .set({
      failedAttempts: sql`${sites.failedAttempts} + 1`,
      status: sql`case when ${sites.failedAttempts} + 1 >= ${maxAttempts} then 'locked' else ${sites.status} end`,
    })
    .where(and(eq(sites.url, url), eq(sites.status, "pending"), sql`${sites.codeExpiresAt} > ${now.toISOString()}`))
    .returning({ id: sites.id, failedAttempts: sites.failedAttempts, status: sites.status });
}

export async function markPairingExpired({ id }: { id: string }) {
  const db = await getDb();
  await db
    .update(sites)
    .set({ status: "expired" })
    .where(and(eq(sites.id, id), eq(sites.status, "pending")));
}

export async function findSiteForUser({
  userId,
  siteId,
}: {
  userId: string;
  siteId: string;
}): Promise<Site | undefined> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(sites)
    .where(and(eq(sites.id, siteId), eq(sites.userId, userId)))
    .limit(1);
  return row;
}

/**
 * A row as its owner's links find it: a re-pairing spent on redeem (or a row folded into its site by migration 0011)
 * stands for the site it re-paired, so the wizard polling the pairing's id lands on the site.
 */
export async function findSiteOrItsRepairForUser(input: { userId: string; siteId: string }): Promise<Site | undefined> {
  const row = await findSiteForUser(input);
  if (!row?.repairsSiteId || row.status !== "revoked") return row;
  return (await findSiteForUser({ userId: input.userId, siteId: row.repairsSiteId })) ?? row;
}

export async function findSiteById({ siteId }: { siteId: string }): Promise<Site | undefined> {
  const db = await getDb();
  const [row] = await db.select().from(sites).where(eq(sites.id, siteId)).limit(1);
  return row;
}

export async function listSitesForUser({ userId }: { userId: string }): Promise<Site[]> {
  const db = await getDb();
  return db
    .select()
    .from(sites)
    .where(and(eq(sites.userId, userId), ne(sites.status, "revoked")))
    .orderBy(desc(sites.createdAt));
}

/** What the plugin's `/info` says about a site, as the sites row keeps it. */
export type SiteDescription = {
  name: string | null;
  pageBuilder: string | null;
  capabilities: string[];
  siteInfo: Record<string, unknown>;
};

const describedAs = (input: SiteDescription & { now: Date }) => ({
  name: input.name,
  pageBuilder: input.pageBuilder,
  capabilities: input.capabilities,
  siteInfo: input.siteInfo,
  lastSeenAt: input.now,
});

export async function activateSite(
  input: SiteDescription & { id: string; now: Date; preflight: Record<string, unknown> },
): Promise<Site | undefined> {
  const db = await getDb();
  const [row] = await db
    .update(sites)
    .set({
      ...describedAs(input),
      status: "active",
      preflight: input.preflight,
      confirmedAt: sql`coalesce(${sites.confirmedAt}, ${input.now.toISOString()}::timestamptz)`,
    })
    .where(and(eq(sites.id, input.id), inArray(sites.status, ["redeemed", "active"] satisfies SiteStatus[])))
    .returning();
  return row;
}

/**
 * What the plugin reported at the start of a chat turn: theme, builder, the token user's capabilities can change
 * after pairing (a theme switch, a demoted user). Only an active site is updated; `last_seen_at` moves too.
 */
export async function updateSiteInfo(input: SiteDescription & { id: string; now: Date }): Promise<Site | undefined> {
  const db = await getDb();
  const [row] = await db
    .update(sites)
    .set(describedAs(input))
    .where(and(eq(sites.id, input.id), eq(sites.status, "active")))
    .returning();
  return row;
}

/** Older connections of the same user to the same URL end when a new one is confirmed. */
export async function revokeOtherConnections({
  userId,
  url,
  keepId,
  now,
}: {
  userId: string;
  url: string;
  keepId: string;
  now: Date;
}) {
  const db = await getDb();
  return db
    .update(sites)
    .set({ status: "revoked", credentials: null, revokedAt: now })
    .where(
      and(
        eq(sites.userId, userId),
        eq(sites.url, url),
        ne(sites.id, keepId),
        inArray(sites.status, ["redeemed", "active"] satisfies SiteStatus[]),
      ),
    )
    .returning({ id: sites.id });
}

export async function revokeSite({ id, now }: { id: string; now: Date }) {
  const db = await getDb();
  await db.update(sites).set({ status: "revoked", credentials: null, revokedAt: now }).where(eq(sites.id, id));
}

export async function touchSiteLastSeen({ id, now }: { id: string; now: Date }) {
  const db = await getDb();
  await db.update(sites).set({ lastSeenAt: now }).where(eq(sites.id, id));
}

/** Pending pairings past their expiry become `expired`; dead pairings older than `deleteBefore` are removed. */
export async function sweepPairings({ now, deleteBefore }: { now: Date; deleteBefore: Date }) {
  const db = await getDb();
  const expired = await db
    .update(sites)
    .set({ status: "expired" })
    .where(and(eq(sites.status, "pending"), lte(sites.codeExpiresAt, now)))
    .returning({ id: sites.id });
  const deleted = await db
    .delete(sites)
    .where(and(or(eq(sites.status, "expired"), eq(sites.status, "locked")), lt(sites.createdAt, deleteBefore)))
    .returning({ id: sites.id });
  return { expired: expired.length, deleted: deleted.length };
}

/**
 * The sites with credentials at one normalized URL (redeemed or active; any user's): a site's own signed call
 * (`POST /sites/plugin/calls`) names its URL, and the one whose token it holds is found among these.
 */
export async function listConnectedSitesAtUrl({ url }: { url: string }): Promise<Site[]> {
  const db = await getDb();
  return db
    .select()
    .from(sites)
    .where(and(eq(sites.url, url), inArray(sites.status, ["redeemed", "active"]), isNotNull(sites.credentials)));
}
