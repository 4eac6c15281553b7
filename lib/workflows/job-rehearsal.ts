/**
 * Use case: Apply of a bulk job rehearsed in a sandbox (docs/bulk-jobs.md, "In sandbox mode"). The claim, the choice
 * of items, the superseded rule and the replay plan are a rehearsal's (./apply-rehearsal.ts, lib/changes/replay.ts);
 * what differs is how it is written, as the live queue writes: a durable run in batches of the plugin's size
 * (./replay-run.ts, queue mode), and an item a person changed on the live site since the copy is skipped and named
 * (its rehearsal item `failed`) while the rest go through — a job is not refused as a whole. A process that dies
 * mid-Apply leaves the run to the next instance (lib/workflows/resume-runs.ts), which writes the rest once, records the
 * one live change set, counts `applied` on the job and ends it `done`.
 */
import { getChangeSet, publicChangeSet } from "@/lib/changes/change-sets";
import { currentTitles } from "@/lib/changes/drift";
import type { Skipped } from "@/lib/changes/queue";
import { manifestEntry, type planReplay } from "@/lib/changes/replay";
import { now as clockNow } from "@/lib/clock";
import { addJobProgress, findRunningRun, transitionChangeItems, transitionJob } from "@/lib/db/queries";
import type { ChangeItem, ChangeSetStatus, Job, SandboxManifest } from "@/lib/db/schema";
import { AppError } from "@/lib/errors";
import type { RehearsalSandboxAccess } from "@/lib/sandbox";
import type { SiteClient } from "@/lib/sites/types";
import { liveItems, plannedApply, type RehearsalRequest, withClaimedRehearsals } from "./apply-rehearsal";
import { replayAsRun } from "./replay-run";

type RehearsalSet = Awaited<ReturnType<typeof getChangeSet>>;
type Plan = ReturnType<typeof planReplay>;

/** The live change set the Apply wrote (the rehearsal itself when nothing could be written), and what it skipped. */
export type JobApplyOutcome = { changeSet: ReturnType<typeof publicChangeSet>; skipped: Skipped[] };

export async function applyJobRehearsal(
  request: RehearsalRequest,
  live: SiteClient,
  sandboxes: RehearsalSandboxAccess,
  job: Job,
  now: () => Date = clockNow,
): Promise<JobApplyOutcome> {
  if (job.status === "planning")
    throw new AppError("not_applicable", "The job is still working in the sandbox; apply it when it is ready.");
  return withClaimedRehearsals(request, now, async (set, claimed) => {
    const { sandboxId, manifest, items, plan } = await plannedApply(request, set, sandboxes);
    // `applying` until the run ends (./replay-run.ts: `done`), here or after a restart.
    await transitionJob({ id: job.id, from: ["ready", "done"], to: "applying", now: now() });
    try {
      const planned = { set, claimed, sandboxId, items, plan };
      const { outcome, liveSetId } = await replayJob({ request, live, job, now }, planned);
      const skipped = await nameSkipped(live, manifest, plan, outcome.skipped);
      const shown = await getChangeSet({ ...request, changeSetId: liveSetId ?? set.id });
      return { changeSet: publicChangeSet(shown), skipped };
    } catch (error) {
      // Failed before any run began: the job is as it was. A run under way is finished by the sweeper instead.
      if (!(await findRunningRun(set.id)))
        await transitionJob({ id: job.id, from: ["applying"], to: job.status, now: now() });
      throw error;
    }
  });
}

type Context = { request: RehearsalRequest; live: SiteClient; job: Job; now: () => Date };
type Planned = {
  set: RehearsalSet;
  claimed: Map<string, ChangeSetStatus>;
  sandboxId: string;
  items: ChangeItem[];
  plan: Plan;
};

/**
 * The replay as a queue run on the rehearsal. The live state of each target is read first: what Undo puts back when a
 * takeover finds a batch landed without its answer. What the replay cannot apply at all is skipped before the run.
 */
async function replayJob(ctx: Context, planned: Planned) {
  const { request, live, job, now } = ctx;
  const { set, claimed, sandboxId, items, plan } = planned;
  // Every chosen item of a ref is made live (or skipped) by that ref's one change.
  const refusedRefs = new Set(plan.refused.map((r) => items.find((item) => item.id === r.id)?.ref ?? r.id));
  const before = new Map(
    [...(await liveItems(live, plan.changes))].map(([ref, item]) => [ref, item.exists ? item.state : null]),
  );
  if (plan.refused.length > 0) {
    const ids = items.filter((item) => refusedRefs.has(item.ref)).map((item) => item.id);
    await transitionChangeItems({ ids, from: "applied", to: "failed", now: now() });
    await addJobProgress({ id: job.id, delta: { skipped: plan.refused.length }, now: now() });
  }
  return replayAsRun(
    {
      request,
      set,
      claimed,
      sandboxId,
      items: items.filter((item) => !refusedRefs.has(item.ref)),
      changes: plan.changes,
      before,
      job: { id: job.id, refused: plan.refused },
    },
    live,
  );
}

/**
 * The skipped items as the owner reads them: named as the live site calls them now (a person's edit may have renamed
 * them), else as they were called when copied — never by a title only the rehearsal gave them (lib/changes/drift.ts).
 * Items the replay cannot apply at all (lib/changes/replay.ts) are skipped with their reason too.
 */
async function nameSkipped(
  live: SiteClient,
  manifest: SandboxManifest,
  plan: Plan,
  skipped: Skipped[],
): Promise<Skipped[]> {
  const refOf = new Map(plan.changes.map((c) => [c.item.id, { live: c.change.ref, sandbox: c.sandboxRef }]));
  const liveRefs = skipped.flatMap((s) => {
    const ref = refOf.get(s.id)?.live;
    return ref && ref !== "post:new" ? [ref] : [];
  });
  const titles = liveRefs.length ? await currentTitles(live, liveRefs).catch(() => new Map<string, string>()) : null;
  const named = skipped.map((s) => {
    const refs = refOf.get(s.id);
    const copied = refs ? manifestEntry(manifest.items, refs.sandbox)?.title : undefined;
    return { ...s, title: (refs && titles?.get(refs.live)) ?? copied ?? s.title };
  });
  return [...plan.refused, ...named];
}
