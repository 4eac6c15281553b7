/** Bulk jobs (docs/bulk-jobs.md): the row, the runner's lease, and the cursor advanced with the items it planned. */
import { and, asc, eq, inArray, isNull, lt, or, type SQL, sql } from "drizzle-orm";
import { getDb } from "../index";
import { changeItems, changeSets, type Job, type JobCounts, type JobProgress, type JobStatus, jobs } from "../schema";
import { appendChangeItems, type ChangeItemInsert } from "./changes";

export type JobInsert = Omit<
  Job,
  "leaseOwner" | "leaseUntil" | "error" | "cursor" | "progress" | "updatedAt" | "resumedAt"
>;

export const NO_PROGRESS: JobProgress = { planned: 0, skipped: 0, failed: 0, applied: 0, tokens: 0 };

export async function insertJob(row: JobInsert): Promise<Job> {
  const db = await getDb();
  const [job] = await db
    .insert(jobs)
    .values({ ...row, cursor: 0, progress: NO_PROGRESS, updatedAt: row.createdAt })
    .returning();
  return job!;
}

/** A job, only for its user and site (undefined otherwise, never saying which). */
export async function findJob(input: { id: string; userId: string; siteId: string }): Promise<Job | undefined> {
  const db = await getDb();
  const [job] = await db
    .select()
    .from(jobs)
    .where(and(eq(jobs.id, input.id), eq(jobs.userId, input.userId), eq(jobs.siteId, input.siteId)));
  return job;
}

/** A site's job whoever started it (a member's route checked the role first; docs/teams.md). */
export async function findJobOfSite(input: { id: string; siteId: string }): Promise<Job | undefined> {
  const db = await getDb();
  const [job] = await db
    .select()
    .from(jobs)
    .where(and(eq(jobs.id, input.id), eq(jobs.siteId, input.siteId)));
  return job;
}

export async function findJobByChangeSet(changeSetId: string): Promise<Job | undefined> {
  const db = await getDb();
  const [job] = await db.select().from(jobs).where(eq(jobs.changeSetId, changeSetId));
  return job;
}

/** Jobs of a user that still hold the runner or wait for review (the per-user limit counts these). */
export async function countOpenJobs(userId: string): Promise<number> {
  const db = await getDb();
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(jobs)
    .where(and(eq(jobs.userId, userId), inArray(jobs.status, ["planning", "applying"])));
  return Number(row?.n ?? 0);
}

/**
 * Takes the oldest planning job whose lease is free or expired, in one statement: two runners (two app instances,
 * or one restarted) never hold the same job, and a runner that died gives it up when its lease runs out.
 */
export async function claimJob(input: { owner: string; now: Date; leaseMs: number }): Promise<Job | undefined> {
  const db = await getDb();
  const until = new Date(input.now.getTime() + input.leaseMs);
  const [job] = await db
    .update(jobs)
    .set({ leaseOwner: input.owner, leaseUntil: until, updatedAt: input.now })
    .where(
      eq(
        jobs.id,
        sql`(select ${jobs.id} from ${jobs} where ${jobs.status} = 'planning' and (${jobs.leaseUntil} is null or ${jobs.leaseUntil} < ${input.now.toISOString()}::timestamptz) order by ${jobs.createdAt} limit 1 for update skip locked)`,
      ),
    )
    .returning();
  return job;
}

/** Gives the job up (the runner finished a step or stops); only by its holder. */
export async function releaseJob(input: { id: string; owner: string }): Promise<void> {
  const db = await getDb();
  await db
    .update(jobs)
    .set({ leaseOwner: null, leaseUntil: null })
    .where(and(eq(jobs.id, input.id), eq(jobs.leaseOwner, input.owner)));
}

/**
 * Records one planned batch: its items are added to the job's change set and the cursor and progress move, in one
 * transaction, and only while `owner` holds the lease and the job still plans. Returns false (nothing stored) when
 * the lease was lost or the job was cancelled: the batch is planned again by whoever holds it, so no item is planned
 * twice.
 */
export async function recordPlannedBatch(input: {
  id: string;
  owner: string;
  cursor: number;
  delta: Partial<JobProgress>;
  items: ChangeItemInsert[];
  now: Date;
  /** The lease, renewed with each batch. */
  leaseUntil: Date;
}): Promise<boolean> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const moved = await tx
      .update(jobs)
      .set({
        cursor: input.cursor,
        progress: addProgress(input.delta),
        updatedAt: input.now,
        leaseUntil: input.leaseUntil,
      })
      .where(and(eq(jobs.id, input.id), eq(jobs.leaseOwner, input.owner), eq(jobs.status, "planning")))
      .returning({ changeSetId: jobs.changeSetId });
    if (moved.length === 0) return false;
    if (input.items.length > 0) await appendChangeItems(tx, moved[0]!.changeSetId, input.items);
    return true;
  });
}

/** Adds to the job's counters (jsonb arithmetic in SQL, so concurrent additions both count). */
function addProgress(delta: Partial<JobProgress>) {
  const key = (name: keyof JobProgress) =>
    sql`jsonb_build_object(${name}::text, coalesce((${jobs.progress}->>${name}::text)::int, 0) + ${delta[name] ?? 0})`;
  return sql`${jobs.progress} || ${key("planned")} || ${key("skipped")} || ${key("failed")} || ${key("applied")} || ${key("tokens")}`;
}

export async function addJobProgress(input: { id: string; delta: Partial<JobProgress>; now: Date }): Promise<void> {
  const db = await getDb();
  await db
    .update(jobs)
    .set({ progress: addProgress(input.delta), updatedAt: input.now })
    .where(eq(jobs.id, input.id));
}

/** Moves a job from one of `from` to `to` in one statement; returns the job when it moved. */
export async function transitionJob(input: {
  id: string;
  from: JobStatus[];
  to: JobStatus;
  now: Date;
  error?: string;
}): Promise<Job | undefined> {
  const db = await getDb();
  const [job] = await db
    .update(jobs)
    .set({
      status: input.to,
      // Leaving planning: how long it took, for the job's time budget shown beside its limit.
      progress: sql`case when ${jobs.status} = 'planning' and ${input.to}::text <> 'planning' then ${jobs.progress} || jsonb_build_object('planningMs', greatest(0, floor(extract(epoch from (${input.now.toISOString()}::timestamptz - ${jobs.createdAt})) * 1000))::bigint) else ${jobs.progress} end`,
      updatedAt: input.now,
      ...(input.error !== undefined ? { error: input.error } : {}),
      ...(input.to !== "planning" ? { leaseOwner: null, leaseUntil: null } : {}),
    })
    .where(and(eq(jobs.id, input.id), inArray(jobs.status, input.from)))
    .returning();
  return job;
}

/** Jobs that still plan and whose lease is free or expired (the runner's "is there work" check). */
export async function hasRunnableJobs(now: Date): Promise<boolean> {
  const db = await getDb();
  const [row] = await db
    .select({ id: jobs.id })
    .from(jobs)
    .where(and(eq(jobs.status, "planning"), or(isNull(jobs.leaseUntil), lt(jobs.leaseUntil, now))))
    .orderBy(asc(jobs.createdAt))
    .limit(1);
  return Boolean(row);
}

/** The refs already in a change set (a resumed batch skips them). */
export async function listChangeSetRefs(changeSetId: string): Promise<Set<string>> {
  const db = await getDb();
  const rows = await db
    .select({ ref: changeItems.ref })
    .from(changeItems)
    .where(eq(changeItems.changeSetId, changeSetId));
  return new Set(rows.map((r) => r.ref));
}

/** A change set's items in order (tests and the job's review). */
export async function getChangeSetItems(changeSetId: string) {
  const db = await getDb();
  return db.select().from(changeItems).where(eq(changeItems.changeSetId, changeSetId)).orderBy(asc(changeItems.seq));
}

/**
 * Each job's counts from its items, in one statement (lib/jobs/counts.ts): every selected item is in exactly one
 * count, so they add up to the selection. Items not reached are `toPlan` (selected − cursor); each item of the job's
 * change set counts by its status (written at once vs approved: a live item visitors see, or a rehearsal's item made
 * live by an Apply); the selected items the runner reached but left without a row are `skipped`.
 */
export async function jobItemCounts(jobIds: string[]): Promise<Map<string, JobCounts>> {
  if (jobIds.length === 0) return new Map();
  const db = await getDb();
  const n = (condition: SQL) => sql<number>`(count(${changeItems.id}) filter (where ${condition}))::int`;
  const selected = sql`(${jobs.selection}->>'count')::int`;
  const reached = sql`least(${jobs.cursor}, ${selected})`;
  const approved = sql`((${changeSets.target} = 'live' and ${changeItems.visible}) or (${changeSets.target} = 'sandbox' and ${changeItems.madeLiveBy} is not null))`;
  const rows = await db
    .select({
      id: jobs.id,
      toPlan: sql<number>`(${selected} - ${reached})::int`,
      waiting: n(sql`${changeItems.status} = 'pending'`),
      inProgress: n(sql`${changeItems.status} in ('writing', 'undoing')`),
      written: n(sql`${changeItems.status} = 'applied' and not ${approved}`),
      approved: n(sql`${changeItems.status} = 'applied' and ${approved}`),
      rejected: n(sql`${changeItems.status} = 'denied'`),
      skipped: sql<number>`greatest(0, ${reached} - count(${changeItems.id}))::int`,
      failed: n(sql`${changeItems.status} = 'failed'`),
      undone: n(sql`${changeItems.status} = 'undone'`),
    })
    .from(jobs)
    .innerJoin(changeSets, eq(changeSets.id, jobs.changeSetId))
    .leftJoin(changeItems, eq(changeItems.changeSetId, jobs.changeSetId))
    .where(inArray(jobs.id, jobIds))
    .groupBy(jobs.id, changeSets.target);
  return new Map(rows.map(({ id, ...counts }) => [id, mapValues(counts, Number)]));
}

const mapValues = <T extends Record<string, unknown>>(row: T, f: (v: unknown) => number) =>
  Object.fromEntries(Object.entries(row).map(([k, v]) => [k, f(v)])) as { [K in keyof T]: number };
