/**
 * Use case: Apply of a bulk job rehearsed in a sandbox (docs/bulk-jobs.md, "In sandbox mode"). The claim, the choice
 * of items, the superseded rule and the replay plan are a rehearsal's (./apply-rehearsal.ts, lib/changes/replay.ts);
 * what differs is how it is written, as the live queue writes: in conditional batches of the plugin's size, each
 * recorded in one live change set as it lands, and an item a person changed on the live site since the copy is
 * skipped and named (its rehearsal item `failed`) while the rest go through — a job is not refused as a whole.
 */
import { auditChange, getChangeSet, publicChangeSet } from "@/lib/changes/change-sets";
import { currentTitles } from "@/lib/changes/drift";
import { type Skipped, writeSkippingDrift } from "@/lib/changes/queue";
import { type LiveChange, manifestAfterApply, manifestEntry, type planReplay } from "@/lib/changes/replay";
import type { WrittenItem } from "@/lib/sites/items";
import { now as clockNow } from "@/lib/clock";
import {
  addJobProgress,
  findSandboxManifest,
  finishRehearsalApply,
  transitionChangeItems,
  transitionJob,
  upsertSandboxManifest,
} from "@/lib/db/queries";
import type { ChangeItem, Job, SandboxManifest } from "@/lib/db/schema";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import type { RehearsalSandboxAccess } from "@/lib/sandbox";
import type { SiteClient } from "@/lib/sites/types";
import { plannedApply, type RehearsalRequest, withClaimedRehearsals } from "./apply-rehearsal";
import { recordLive } from "./replay-run";

type RehearsalSet = Awaited<ReturnType<typeof getChangeSet>>;
type Planned = { set: RehearsalSet; chosen: { sets: string[]; items: ChangeItem[] }; manifest: SandboxManifest };

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
  return withClaimedRehearsals(request, now, async (set) => {
    const { chosen, manifest, items, plan } = await plannedApply(request, set, sandboxes);
    await transitionJob({ id: job.id, from: ["ready", "done"], to: "applying", now: now() });
    // From here on the live site may change: whatever happens, the sets' status is computed from their items.
    try {
      return await writeInBatches({ request, live, job, now }, { set, chosen: { ...chosen, items }, manifest }, plan);
    } finally {
      await finishRehearsalApply({ itemIds: [], liveChangeSetId: "", sets: chosen.sets, now: now() });
      await transitionJob({ id: job.id, from: ["applying"], to: "done", now: now() });
    }
  });
}

type Context = { request: RehearsalRequest; live: SiteClient; job: Job; now: () => Date };

async function writeInBatches(
  ctx: Context,
  planned: Planned,
  plan: ReturnType<typeof planReplay>,
): Promise<JobApplyOutcome> {
  const { request, live, now } = ctx;
  const { set, chosen } = planned;
  // Every chosen item of a ref is made live by that ref's one change.
  const itemsOfRef = new Map<string, string[]>();
  for (const item of chosen.items) itemsOfRef.set(item.ref, [...(itemsOfRef.get(item.ref) ?? []), item.id]);
  const turnId = `job:${ctx.job.id}:apply-${now().getTime()}`;
  const written: { changes: LiveChange[]; done: WrittenItem[] } = { changes: [], done: [] };
  let liveSetId: string | undefined;
  const result = await writeSkippingDrift(
    live,
    plan.changes.map((entry) => ({ item: { id: entry.item.id, title: entry.title, entry }, change: entry.change })),
    async (batch) => {
      const changes = batch.map((b) => b.item.entry);
      const done = batch.map((b) => b.done);
      const recorded = await recordLive(request, set, changes, done, now, turnId);
      liveSetId = recorded.changeSetId;
      await finishRehearsalApply({
        itemIds: changes.flatMap((c) => itemsOfRef.get(c.item.ref) ?? [c.item.id]),
        liveChangeSetId: recorded.changeSetId,
        sets: [],
        now: now(),
      });
      written.changes.push(...changes);
      written.done.push(...done);
    },
  ).catch(async (error: unknown) => {
    await recordManifest(planned, written);
    throw error;
  });
  const skipped = await nameSkipped(live, planned, plan, result.skipped);
  const skippedIds = skipped.flatMap((s) => {
    const item = chosen.items.find((i) => i.id === s.id);
    return item ? (itemsOfRef.get(item.ref) ?? [s.id]) : [s.id];
  });
  await transitionChangeItems({ ids: skippedIds, from: "applied", to: "failed", now: now() });
  await recordManifest(planned, written);
  await addJobProgress({
    id: ctx.job.id,
    delta: { applied: written.changes.length, skipped: skipped.length },
    now: now(),
  });
  await auditChange({
    changeSetId: set.id,
    siteId: set.siteId,
    userId: request.userId,
    action: "apply",
    itemIds: chosen.items.map((item) => item.id),
    outcome: skipped.length ? "partial" : "ok",
    detail: [
      liveSetId ? `live change set ${liveSetId}` : "nothing written",
      ...skipped.map((s) => `${s.title}: ${s.reason}`),
    ].join(" "),
  });
  const shown = await getChangeSet({ ...request, changeSetId: liveSetId ?? set.id });
  return { changeSet: publicChangeSet(shown), skipped };
}

/**
 * The skipped items as the owner reads them: named as the live site calls them now (a person's edit may have renamed
 * them), else as they were called when copied — never by a title only the rehearsal gave them (lib/changes/drift.ts).
 * Items the replay cannot apply at all (lib/changes/replay.ts) are skipped with their reason too.
 */
async function nameSkipped(
  live: SiteClient,
  planned: Planned,
  plan: ReturnType<typeof planReplay>,
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
    const copied = refs ? manifestEntry(planned.manifest.items, refs.sandbox)?.title : undefined;
    return { ...s, title: (refs && titles?.get(refs.live)) ?? copied ?? s.title };
  });
  return [...plan.refused, ...named];
}

/** The written items' new live versions, so a later rehearsal in the same sandbox applies over them. */
async function recordManifest(planned: Planned, written: { changes: LiveChange[]; done: WrittenItem[] }) {
  if (written.changes.length === 0) return;
  const sandboxId = planned.set.sandboxId!;
  const current = (await findSandboxManifest({ sandboxId })) ?? planned.manifest;
  await upsertSandboxManifest({
    ...current,
    items: manifestAfterApply(current.items, written.changes, written.done),
  }).catch((error) => log.warn("could not record the applied versions in the manifest", { sandboxId, error }));
}
