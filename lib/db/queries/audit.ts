/** The per-site audit chain (docs/teams.md): appends under the site's lock, reads for export, the retention cut. */
import { and, asc, desc, eq, lt, lte, sql } from "drizzle-orm";
import { getDb } from "../index";
import { type AuditEntryRow, auditEntries } from "../schema";

export type ChainTip = { seq: number; hash: string; first: number };
export type NewAuditRow = Omit<AuditEntryRow, "siteId">;

/**
 * Appends what `build` makes from the chain's tip, atomically: one transaction holding the site's advisory lock,
 * so concurrent appends queue instead of forking (and `(site_id, seq)` is the key, so a fork could not be stored).
 */
export async function appendAuditRows(input: {
  siteId: string;
  build: (tip: ChainTip | undefined) => NewAuditRow[];
}): Promise<AuditEntryRow[]> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`audit:${input.siteId}`}, 0))`);
    const [tip] = await tx
      .select({ seq: auditEntries.seq, hash: auditEntries.hash })
      .from(auditEntries)
      .where(eq(auditEntries.siteId, input.siteId))
      .orderBy(desc(auditEntries.seq))
      .limit(1);
    const [start] = await tx
      .select({ seq: auditEntries.seq })
      .from(auditEntries)
      .where(eq(auditEntries.siteId, input.siteId))
      .orderBy(asc(auditEntries.seq))
      .limit(1);
    const rows = input.build(tip && start ? { ...tip, first: start.seq } : undefined);
    if (rows.length === 0) return [];
    return tx
      .insert(auditEntries)
      .values(rows.map((row) => ({ ...row, siteId: input.siteId })))
      .returning();
  });
}

/** The chain's entries in order, up to `through` (an export's own checkpoint) when given. */
export async function listAuditRows({
  siteId,
  through,
}: {
  siteId: string;
  through?: number;
}): Promise<AuditEntryRow[]> {
  const db = await getDb();
  return db
    .select()
    .from(auditEntries)
    .where(and(eq(auditEntries.siteId, siteId), through === undefined ? undefined : lte(auditEntries.seq, through)))
    .orderBy(asc(auditEntries.seq));
}

/** The newest checkpoint made at or before `before`: where a retention cut may fall. */
export async function findCheckpointBefore({ siteId, before }: { siteId: string; before: string }) {
  const db = await getDb();
  const [row] = await db
    .select({ seq: auditEntries.seq })
    .from(auditEntries)
    .where(and(eq(auditEntries.siteId, siteId), eq(auditEntries.action, "checkpoint"), lte(auditEntries.at, before)))
    .orderBy(desc(auditEntries.seq))
    .limit(1);
  return row;
}

/** Deletes the entries before `seq` (a checkpoint's), so the chain starts at that checkpoint. */
export async function cutAuditChain({ siteId, seq }: { siteId: string; seq: number }): Promise<number> {
  const db = await getDb();
  const deleted = await db
    .delete(auditEntries)
    .where(and(eq(auditEntries.siteId, siteId), lt(auditEntries.seq, seq)))
    .returning({ seq: auditEntries.seq });
  return deleted.length;
}

/** Whether an entry of `action` with this details value was recorded for the site (a sign-in once per session). */
export async function hasAuditEntry(input: { siteId: string; action: string; key: string; value: string }) {
  const db = await getDb();
  const [row] = await db
    .select({ seq: auditEntries.seq })
    .from(auditEntries)
    .where(
      and(
        eq(auditEntries.siteId, input.siteId),
        eq(auditEntries.action, input.action),
        sql`${auditEntries.details} ->> ${input.key} = ${input.value}`,
      ),
    )
    .limit(1);
  return Boolean(row);
}
