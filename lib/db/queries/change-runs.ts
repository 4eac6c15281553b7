/**
 * Durable Apply and Undo (lib/changes/journal.ts): the run and its entries are recorded before the first write; the
 * lease is taken, renewed and taken over in single statements; a batch's entries move on only from the states they
 * were read in, so a batch recorded twice (a resumed run after a crash) counts once.
 */
import { and, asc, eq, inArray, lt, sql } from "drizzle-orm";
import { type Db, getDb } from "../index";
import {
  type ChangeRun,
  type ChangeRunEntry,
  type ChangeItemStatus,
  type ChangeRunEntryState,
  changeItems,
  changeRunEntries,
  changeRuns,
  changeSets,
  type JobProgress,
  jobs,
} from "../schema";

export type ChangeRunInsert = Omit<
  ChangeRun,
  "state" | "outcome" | "updatedAt" | "resumedAt" | "finishedAt" | "leaseOwner" | "leaseUntil"
> & { leaseOwner: string; leaseUntil: Date };
export type ChangeRunEntryInsert = Omit<ChangeRunEntry, "runId" | "state" | "result" | "reason">;

/**
 * What an Apply claimed before its run is recorded, checked still held in the run's own transaction: the sweeper
 * releases a claim left without a run past the lease (./claims.ts), so a stalled process must not record a run over it.
 */
export type ClaimHeld = { sets?: string[]; jobId?: string | null; writing?: string[] };

/** Items an Apply claims in the run's own transaction (`pending → writing`), all or none: no claim without its run. */
export type ClaimTaken = { ids: string[]; from: ChangeItemStatus; to: ChangeItemStatus };

export class ClaimTakenError extends Error {
  /** The items that were still free (claimed, then rolled back with the rest): a queue may claim just those. */
  readonly free: string[];
  constructor(free: string[] = []) {
    super("These items are being written already.");
    this.name = "ClaimTakenError";
    this.free = free;
  }
}

export const isClaimTakenError = (error: unknown): error is ClaimTakenError =>
  error instanceof Error && error.name === "ClaimTakenError";

export class ClaimReleasedError extends Error {
  constructor() {
    super("The claim of this Apply was released after it stalled; nothing was written.");
    this.name = "ClaimReleasedError";
  }
}

/** The claim's rows locked (the job first, as the sweeper locks it) and still as the claim left them. */
async function claimStillHeld(tx: Db, claim: ClaimHeld): Promise<boolean> {
  if (claim.jobId) {
    const [job] = await tx.select({ id: jobs.id }).from(jobs).where(eq(jobs.id, claim.jobId)).for("update");
    if (!job) return false;
  }
  if (claim.sets?.length) {
    const held = await tx
      .select({ id: changeSets.id })
      .from(changeSets)
      .where(and(inArray(changeSets.id, claim.sets), eq(changeSets.status, "applying")))
      .for("update");
    if (held.length !== new Set(claim.sets).size) return false;
  }
  if (claim.writing?.length) {
    const held = await tx
      .select({ id: changeItems.id })
      .from(changeItems)
      .where(and(inArray(changeItems.id, claim.writing), eq(changeItems.status, "writing")))
      .for("update");
    if (held.length !== new Set(claim.writing).size) return false;
  }
  return true;
}

/**
 * The run and every entry it will send, in one transaction, before anything is written; with `claim`, only while the
 * claim is still held (`ClaimReleasedError` otherwise); with `take`, claiming those items in it (`ClaimTakenError`).
 */
export async function insertChangeRun(input: {
  run: ChangeRunInsert;
  entries: ChangeRunEntryInsert[];
  claim?: ClaimHeld;
  take?: ClaimTaken;
}) {
  const db = await getDb();
  return db.transaction(async (tx) => {
    if (input.claim && !(await claimStillHeld(tx, input.claim))) throw new ClaimReleasedError();
    if (input.take) {
      const taken = await tx
        .update(changeItems)
        .set({ status: input.take.to })
        .where(and(inArray(changeItems.id, input.take.ids), eq(changeItems.status, input.take.from)))
        .returning({ id: changeItems.id });
      // Thrown inside the transaction: a part taken is rolled back with it.
      if (taken.length !== new Set(input.take.ids).size) throw new ClaimTakenError(taken.map((row) => row.id));
    }
    const [run] = await tx
      .insert(changeRuns)
      .values({ ...input.run, state: "running", updatedAt: input.run.createdAt })
      .returning();
    for (let start = 0; start < input.entries.length; start += 500) {
      const rows = input.entries.slice(start, start + 500);
      await tx
        .insert(changeRunEntries)
        .values(rows.map((entry) => ({ ...entry, runId: run!.id, state: "pending" as const })));
    }
    return run!;
  });
}

/** Renews the lease while `owner` holds it and the run is still running; false when it was lost. */
export async function renewRunLease(input: { id: string; owner: string; until: Date; now: Date }): Promise<boolean> {
  const db = await getDb();
  const rows = await db
    .update(changeRuns)
    .set({ leaseUntil: input.until, updatedAt: input.now })
    .where(and(eq(changeRuns.id, input.id), eq(changeRuns.leaseOwner, input.owner), eq(changeRuns.state, "running")))
    .returning({ id: changeRuns.id });
  return rows.length > 0;
}

/** Lets the lease go at once (the holder gives up after a failure it cannot judge): the sweeper retries it. */
export async function releaseRunLease(input: { id: string; owner: string; now: Date }): Promise<void> {
  const db = await getDb();
  await db
    .update(changeRuns)
    .set({ leaseUntil: input.now, updatedAt: input.now })
    .where(and(eq(changeRuns.id, input.id), eq(changeRuns.leaseOwner, input.owner), eq(changeRuns.state, "running")));
}

/**
 * Takes over the oldest running run whose lease has expired (optionally of one change set), in one statement, and
 * stamps `resumedAt` on it, its change set and its job: the owner's pages say it is resuming after a restart.
 */
export async function claimExpiredRun(input: {
  owner: string;
  now: Date;
  until: Date;
  changeSetId?: string;
}): Promise<ChangeRun | undefined> {
  const db = await getDb();
  const at = input.now.toISOString();
  const ofSet = input.changeSetId ? sql`and ${changeRuns.changeSetId} = ${input.changeSetId}` : sql``;
  return db.transaction(async (tx) => {
    const [run] = await tx
      .update(changeRuns)
      .set({
        leaseOwner: input.owner,
        leaseUntil: input.until,
        updatedAt: input.now,
        resumedAt: sql`coalesce(${changeRuns.resumedAt}, ${at}::timestamptz)`,
      })
      .where(
        eq(
          changeRuns.id,
          sql`(select ${changeRuns.id} from ${changeRuns} where ${changeRuns.state} = 'running' and (${changeRuns.leaseUntil} is null or ${changeRuns.leaseUntil} < ${at}::timestamptz) ${ofSet} order by ${changeRuns.createdAt} limit 1 for update skip locked)`,
        ),
      )
      .returning();
    if (!run) return undefined;
    await tx.update(changeSets).set({ resumedAt: input.now }).where(eq(changeSets.id, run.changeSetId));
    if (run.jobId) await tx.update(jobs).set({ resumedAt: input.now }).where(eq(jobs.id, run.jobId));
    return run;
  });
}

/** Whether some run waits to be taken over (the sweeper's cheap check). */
export async function hasExpiredRuns(now: Date): Promise<boolean> {
  const db = await getDb();
  const [row] = await db
    .select({ id: changeRuns.id })
    .from(changeRuns)
    .where(and(eq(changeRuns.state, "running"), lt(changeRuns.leaseUntil, now)))
    .limit(1);
  return Boolean(row);
}

export async function listRunEntries(runId: string): Promise<ChangeRunEntry[]> {
  const db = await getDb();
  return db.select().from(changeRunEntries).where(eq(changeRunEntries.runId, runId)).orderBy(asc(changeRunEntries.seq));
}

/** The run a change set has under way, if any (its pages show it). */
export async function findRunningRun(changeSetId: string): Promise<ChangeRun | undefined> {
  const db = await getDb();
  const [run] = await db
    .select()
    .from(changeRuns)
    .where(and(eq(changeRuns.changeSetId, changeSetId), eq(changeRuns.state, "running")))
    .limit(1);
  return run;
}

export async function findChangeRun(id: string): Promise<ChangeRun | undefined> {
  const db = await getDb();
  const [run] = await db.select().from(changeRuns).where(eq(changeRuns.id, id));
  return run;
}

/** Entries about to be sent: `writing` is recorded before the request leaves, only while `owner` holds the lease. */
export async function markEntriesWriting(input: { runId: string; owner: string; seqs: number[] }): Promise<boolean> {
  if (input.seqs.length === 0) return true;
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [held] = await tx
      .select({ id: changeRuns.id })
      .from(changeRuns)
      .where(
        and(eq(changeRuns.id, input.runId), eq(changeRuns.leaseOwner, input.owner), eq(changeRuns.state, "running")),
      )
      .for("update");
    if (!held) return false;
    await tx
      .update(changeRunEntries)
      .set({ state: "writing" })
      .where(
        and(
          eq(changeRunEntries.runId, input.runId),
          inArray(changeRunEntries.seq, input.seqs),
          eq(changeRunEntries.state, "pending"),
        ),
      );
    return true;
  });
}

export type EntryOutcome = {
  seq: number;
  state: Extract<ChangeRunEntryState, "written" | "skipped">;
  result?: Record<string, unknown> | null;
  reason?: string;
};

/**
 * Records entries as written or skipped, each only from `pending`/`writing`, and the job's counters for the ones that
 * moved, in one transaction: a batch recorded again after a crash moves nothing and counts nothing twice.
 */
export async function completeEntries(input: {
  runId: string;
  outcomes: EntryOutcome[];
  jobId?: string | null;
  counters?: { written?: keyof JobProgress; skipped?: keyof JobProgress };
  now: Date;
}): Promise<number> {
  if (input.outcomes.length === 0) return 0;
  const db = await getDb();
  return db.transaction(async (tx) => {
    const moved = { written: 0, skipped: 0 };
    for (const outcome of input.outcomes) {
      const rows = await tx
        .update(changeRunEntries)
        .set({ state: outcome.state, result: outcome.result ?? null, reason: outcome.reason ?? null })
        .where(
          and(
            eq(changeRunEntries.runId, input.runId),
            eq(changeRunEntries.seq, outcome.seq),
            inArray(changeRunEntries.state, ["pending", "writing"]),
          ),
        )
        .returning({ seq: changeRunEntries.seq });
      if (rows.length > 0) moved[outcome.state] += 1;
    }
    const add: Partial<Record<keyof JobProgress, number>> = {};
    if (input.counters?.written && moved.written) add[input.counters.written] = moved.written;
    if (input.counters?.skipped && moved.skipped)
      add[input.counters.skipped] = (add[input.counters.skipped] ?? 0) + moved.skipped;
    if (input.jobId && Object.keys(add).length > 0) {
      let progress = sql`${jobs.progress}`;
      for (const [key, value] of Object.entries(add))
        progress = sql`${progress} || jsonb_build_object(${key}::text, coalesce((${jobs.progress}->>${key}::text)::int, 0) + ${value})`;
      await tx.update(jobs).set({ progress, updatedAt: input.now }).where(eq(jobs.id, input.jobId));
    }
    return moved.written + moved.skipped;
  });
}

/** Ends the run (only by the lease's holder): `done`, or `refused` when an atomic run was refused as a whole. */
export async function finishChangeRun(input: {
  id: string;
  owner: string;
  state: "done" | "refused";
  outcome: Record<string, unknown>;
  now: Date;
}): Promise<boolean> {
  const db = await getDb();
  const rows = await db
    .update(changeRuns)
    .set({
      state: input.state,
      outcome: input.outcome,
      finishedAt: input.now,
      updatedAt: input.now,
      leaseOwner: null,
      leaseUntil: null,
    })
    .where(and(eq(changeRuns.id, input.id), eq(changeRuns.leaseOwner, input.owner), eq(changeRuns.state, "running")))
    .returning({ id: changeRuns.id });
  return rows.length > 0;
}
