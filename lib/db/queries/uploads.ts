/** Files the owner attached in the chat (docs/media.md): stored with their bytes, read only by their owner. */
import { and, count, eq, gt, inArray, isNotNull, isNull, lte, sql } from "drizzle-orm";
import { getDb } from "../index";
import { type Upload, uploads } from "../schema";

export type UploadMeta = Omit<Upload, "bytes">;

const meta = {
  id: uploads.id,
  userId: uploads.userId,
  siteId: uploads.siteId,
  name: uploads.name,
  mime: uploads.mime,
  size: uploads.size,
  width: uploads.width,
  height: uploads.height,
  sourceUrl: uploads.sourceUrl,
  createdAt: uploads.createdAt,
  usedAt: uploads.usedAt,
  expiresAt: uploads.expiresAt,
};

export async function insertUpload(row: Upload): Promise<UploadMeta> {
  const db = await getDb();
  const [inserted] = await db.insert(uploads).values(row).returning(meta);
  return inserted!;
}

/** The upload with its bytes, if it is this user's, for this site, and not expired. */
export async function findUpload(input: { id: string; userId: string; siteId: string; now: Date }) {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(uploads)
    .where(
      and(
        eq(uploads.id, input.id),
        eq(uploads.userId, input.userId),
        eq(uploads.siteId, input.siteId),
        gt(uploads.expiresAt, input.now),
      ),
    );
  return row ? { ...row, bytes: Buffer.from(row.bytes) } : undefined;
}

/** An upload a change of the site used (its card's preview), whoever uploaded it, while it is kept. */
export async function findUsedSiteUpload(input: { id: string; siteId: string; now: Date }) {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(uploads)
    .where(
      and(
        eq(uploads.id, input.id),
        eq(uploads.siteId, input.siteId),
        isNotNull(uploads.usedAt),
        gt(uploads.expiresAt, input.now),
      ),
    );
  return row ? { ...row, bytes: Buffer.from(row.bytes) } : undefined;
}

/** Several uploads' descriptions (no bytes), only those that are this user's for this site and not expired. */
export async function listUploadMeta(input: {
  ids: string[];
  userId: string;
  siteId: string;
  now: Date;
}): Promise<UploadMeta[]> {
  if (input.ids.length === 0) return [];
  const db = await getDb();
  return db
    .select(meta)
    .from(uploads)
    .where(
      and(
        inArray(uploads.id, input.ids),
        eq(uploads.userId, input.userId),
        eq(uploads.siteId, input.siteId),
        gt(uploads.expiresAt, input.now),
      ),
    );
}

/** An upload put on the site: kept until `keepUntil` (for the previews of its change), never shortened. */
export async function markUploadUsed(input: { id: string; now: Date; keepUntil: Date }): Promise<void> {
  const db = await getDb();
  await db
    .update(uploads)
    .set({
      usedAt: input.now,
      expiresAt: sql`greatest(${uploads.expiresAt}, ${input.keepUntil.toISOString()}::timestamptz)`,
    })
    .where(eq(uploads.id, input.id));
}

/** How many uploads the user holds that nothing used yet and that have not expired. */
export async function countUnusedUploads(input: { userId: string; now: Date }): Promise<number> {
  const db = await getDb();
  const [row] = await db
    .select({ n: count() })
    .from(uploads)
    .where(and(eq(uploads.userId, input.userId), isNull(uploads.usedAt), gt(uploads.expiresAt, input.now)));
  return row?.n ?? 0;
}

export async function deleteExpiredUploads(input: { now: Date }): Promise<number> {
  const db = await getDb();
  const rows = await db.delete(uploads).where(lte(uploads.expiresAt, input.now)).returning({ id: uploads.id });
  return rows.length;
}
