/**
 * Claims an Apply took but never followed with a run (docs/change-sets.md, "A claim without a run"): the process died
 * while it read the sandbox and the live states, before anything was recorded or written. Released in one transaction
 * with the rows locked in the order a run's record locks them (the job, then the sets, then the items), and the runs
 * looked for only once the locks are held: a run recorded meanwhile keeps its claim, and a stalled process that wakes
 * up after the release records nothing (insertChangeRun, `ClaimReleasedError`).
 */
import { and, eq, inArray, lt, sql } from "drizzle-orm";
import { getDb } from "../index";
import { statusFromItems } from "./change-set-status";
import { changeItems, changeRuns, changeSets, jobs } from "../schema";

export type ReleasedClaims = { jobs: string[]; sets: string[] };

/** Jobs and rehearsals `applying` since before `claimedBefore` with no run under way: back to waiting for Apply. */
export async function releaseStalledClaims(input: { claimedBefore: Date; now: Date }): Promise<ReleasedClaims> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const jobRows = await tx
      .select({ id: jobs.id, changeSetId: jobs.changeSetId })
      .from(jobs)
      .where(and(eq(jobs.status, "applying"), lt(jobs.updatedAt, input.claimedBefore)))
      .for("update", { skipLocked: true });
    const setRows = await tx
      .select({ id: changeSets.id })
      .from(changeSets)
      .where(
        and(
          eq(changeSets.target, "sandbox"),
          eq(changeSets.status, "applying"),
          lt(changeSets.updatedAt, input.claimedBefore),
        ),
      )
      .for("update", { skipLocked: true });
    if (jobRows.length === 0 && setRows.length === 0) return { jobs: [], sets: [] };
    // A new statement, after the locks: it sees a run recorded while this transaction waited for them.
    const running = await tx
      .select({ changeSetId: changeRuns.changeSetId, jobId: changeRuns.jobId, context: changeRuns.context })
      .from(changeRuns)
      .where(eq(changeRuns.state, "running"));
    const busySets = new Set(
      running.flatMap((run) => [run.changeSetId, ...((run.context.sets as string[] | undefined) ?? [])]),
    );
    const busyJobs = new Set(running.map((run) => run.jobId));
    const stalledJobs = jobRows.filter((job) => !busyJobs.has(job.id));
    const stalledSets = setRows.filter((set) => !busySets.has(set.id)).map((set) => set.id);
    if (stalledJobs.length > 0) {
      await tx
        .update(jobs)
        .set({ status: "ready", updatedAt: input.now, leaseOwner: null, leaseUntil: null })
        .where(
          inArray(
            jobs.id,
            stalledJobs.map((job) => job.id),
          ),
        );
      // A live job's claimed items wait for the click again (a rehearsal's stay `applied` in the sandbox).
      const itemSets = stalledJobs.map((job) => job.changeSetId).filter((id) => !busySets.has(id));
      if (itemSets.length > 0)
        await tx
          .update(changeItems)
          .set({ status: "pending" })
          .where(and(inArray(changeItems.changeSetId, itemSets), eq(changeItems.status, "writing")));
    }
    if (stalledSets.length > 0) {
      // Each rehearsal's status from its items, as before the claim: nothing was written, so nothing moved.
      const next = statusFromItems(tx, stalledSets, ["discarded"]);
      await tx
        .update(changeSets)
        .set({ status: sql`${next.status}`, updatedAt: input.now })
        .from(next)
        .where(and(eq(changeSets.id, next.id), eq(changeSets.status, "applying")));
    }
    return { jobs: stalledJobs.map((job) => job.id), sets: stalledSets };
  });
}
