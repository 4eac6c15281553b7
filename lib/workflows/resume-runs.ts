/**
 * Use case: finish the Applies and Undos a dead process left (lib/changes/journal.ts). At start-up, every few seconds,
 * and when the owner looks at a change set or a job, this instance takes over each run whose lease has expired and
 * finishes it on the site's current credentials: what the dead one wrote is found and recorded, the rest is written
 * once. The change set and job say `resumedAt`, so the owner's pages say "resuming after a restart". An Apply's claim
 * that no run followed within the lease (the process died before it recorded one; nothing was written) is released,
 * so the owner can click Apply again (docs/change-sets.md, "A claim without a run").
 */
import "@/lib/changes/runs";
import "./replay-run";
import { driveRun, isLeaseLostError, leaseMs, leaseUntil, RUN_OWNER } from "@/lib/changes/journal";
import { now } from "@/lib/clock";
import { claimExpiredRun, findSiteById, hasExpiredRuns, releaseStalledClaims } from "@/lib/db/queries";
import type { Site } from "@/lib/db/schema";
import { log } from "@/lib/log";
import { processState } from "@/lib/process-state";
import type { SiteClient } from "@/lib/sites/types";

type Sweep = { running?: Promise<number> };
const sweep = processState<Sweep>("change-run-sweep", () => ({}));

/**
 * Takes over and finishes expired runs (of one change set, when named) until none is left; returns how many. A run
 * that fails again (the site is still down) waits for the next sweep, so one bad site never spins the loop.
 */
export async function resumeInterruptedRuns(input: {
  siteClient(site: Site): SiteClient;
  changeSetId?: string;
}): Promise<number> {
  await releaseClaimsWithoutRun();
  let finished = 0;
  for (;;) {
    const run = await claimExpiredRun({
      owner: RUN_OWNER,
      now: now(),
      until: leaseUntil(),
      changeSetId: input.changeSetId,
    });
    if (!run) return finished;
    log.info("resuming a change run after a restart", { runId: run.id, changeSetId: run.changeSetId, kind: run.kind });
    try {
      const site = await findSiteById({ siteId: run.siteId });
      if (!site) throw new Error("The site of this change run is gone.");
      await driveRun(run, input.siteClient(site));
      finished += 1;
    } catch (error) {
      if (!isLeaseLostError(error))
        log.warn("a resumed change run stopped; the next sweep tries again", { runId: run.id, error });
      return finished;
    }
  }
}

/**
 * Puts back the rehearsals and jobs an Apply claimed longer than a lease ago without recording its run: the claiming
 * process died while it read the sandbox and the live states, so nothing was written and nothing will finish them.
 */
export async function releaseClaimsWithoutRun(): Promise<number> {
  const at = now();
  const released = await releaseStalledClaims({ claimedBefore: new Date(at.getTime() - leaseMs()), now: at });
  if (released.sets.length || released.jobs.length)
    log.warn("released an Apply's claim that no run followed (the process stopped before writing)", released);
  return released.sets.length + released.jobs.length;
}

/** One sweep at a time per process (boot, the timer, and reads may all ask at once). */
export function sweepInterruptedRuns(siteClient: (site: Site) => SiteClient): Promise<number> {
  sweep.running ??= (async () =>
    (await hasExpiredRuns(now())) ? resumeInterruptedRuns({ siteClient }) : releaseClaimsWithoutRun().then(() => 0))()
    .catch((error: unknown) => {
      log.error("the change run sweep failed", { error });
      return 0;
    })
    .finally(() => {
      sweep.running = undefined;
    });
  return sweep.running;
}
