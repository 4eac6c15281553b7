/**
 * A rehearsal's Apply as a durable run (kind `replay`, lib/changes/journal.ts; docs/rehearsal.md and
 * docs/change-sets.md, "Durable Apply and Undo"). The replay's changes are recorded on the rehearsal before the first
 * write, each with what it needs to become a live item (its kind, summary, diff and the live state it replaces), so a
 * run another instance takes over after a restart finishes as the one that started it would have: the live change
 * set recorded, the rehearsal's items made live, the sandbox's manifest moved on to the versions written. A bulk
 * job's Apply (./job-rehearsal.ts) is the same run in queue mode: it also counts on the job and ends it `done`.
 */
import { auditChange, itemsOfToolCall, recordWritten } from "@/lib/changes/change-sets";
import { currentTitles } from "@/lib/changes/drift";
import { driveRun, registerRunKind, type RunOutcome, type RunSkipped, startRun } from "@/lib/changes/journal";
import type { PlannedItem } from "@/lib/changes/plan";
import { type LiveChange, manifestAfterApply, type ReplayItem } from "@/lib/changes/replay";
import { now } from "@/lib/clock";
import {
  findSandboxManifest,
  finishRehearsalApply,
  listRunEntries,
  releaseRehearsals,
  transitionChangeItems,
  transitionJob,
  upsertSandboxManifest,
} from "@/lib/db/queries";
import type { ChangeRun, ChangeRunEntry, ChangeSetStatus, SandboxManifest } from "@/lib/db/schema";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { isFilteredItemsError, isStaleItemsError, type WrittenItem } from "@/lib/sites/items";
import type { SiteClient } from "@/lib/sites/types";

/** What a replay run needs to finish without the request that started it (`change_runs.context`). */
type ReplayContext = {
  /** Every rehearsal the Apply claimed, and the status each had before (put back when the site refuses it all). */
  sets: string[];
  previous: Record<string, ChangeSetStatus>;
  sandboxId: string;
  conversationId: string;
  /** The live change set's turn: one per Apply, so a takeover finds the set it already recorded. */
  turnId: string;
  itemIds: string[];
  /** A bulk job's Apply: the items the replay cannot apply at all, named in the audit beside the skipped ones. */
  refused?: RunSkipped[];
};

/** What an entry keeps beside its change (`change_run_entries.data`). */
type ReplayData = {
  kind: string;
  sandboxRef: string;
  item: Pick<ReplayItem, "id" | "summary" | "before" | "after">;
  /** The rehearsal's items this change makes live (every chosen item of its target). */
  madeLive: string[];
  /** The live state the change replaces, as read before the run (what Undo puts back if a takeover finds it landed). */
  before: Record<string, unknown> | null;
};

const contextOf = (run: ChangeRun) => run.context as ReplayContext;
const dataOf = (entry: ChangeRunEntry) => entry.data as ReplayData;

const liveChangeOf = (entry: ChangeRunEntry): LiveChange => {
  const data = dataOf(entry);
  return {
    change: entry.change,
    title: entry.title,
    kind: data.kind,
    sandboxRef: data.sandboxRef,
    item: data.item as ReplayItem,
  };
};

/** What an Apply wrote, as its own live change set (undoable like any other); `turnId` names it (one per Apply). */
export function recordLive(
  request: { userId: string },
  set: { id: string; siteId: string; conversationId: string },
  changes: LiveChange[],
  done: WrittenItem[],
  at: () => Date,
  turnId = `apply-${set.id}-${at().getTime()}`,
) {
  const planned: PlannedItem[] = changes.map((entry, index) => {
    const result = done[index];
    const changed = Object.keys(entry.change.fields ?? {});
    const pick = (state: Record<string, unknown> | null | undefined) =>
      state ? Object.fromEntries(changed.map((key) => [key, state[key] ?? null])) : null;
    // Global styles: the owner reads each colour, size or style that changes, as the rehearsal showed it (the raw
    // settings and styles objects are what is written, not what anyone reads).
    const described = entry.kind === "global_styles" && isObject(entry.item.before) && isObject(entry.item.after);
    return {
      kind: entry.kind,
      ref: entry.change.ref,
      action: entry.change.action,
      title: entry.title,
      summary: `Applied from the sandbox: ${entry.item.summary}`,
      before: described ? (entry.item.before as Record<string, unknown>) : pick(result?.before),
      after: described ? (entry.item.after as Record<string, unknown>) : pick(result?.after),
      visible: true,
      change: entry.change,
      beforeState: result?.before ?? null,
      versionRead: entry.change.expect,
    };
  });
  return recordWritten(
    { userId: request.userId, siteId: set.siteId, conversationId: set.conversationId, turnId, target: "live" },
    turnId,
    planned,
    done,
  );
}

/** The live change set this run recorded, if it got that far (found by its turn). */
async function liveSetOf(run: ChangeRun): Promise<string | undefined> {
  const { conversationId, turnId } = contextOf(run);
  const [item] = await itemsOfToolCall({ conversationId, turnId, toolCallId: turnId });
  return item?.changeSetId;
}

/** The live items now hold the applied versions: a later rehearsal set of this sandbox applies over them. */
async function recordManifest(sandboxId: string, changes: LiveChange[], done: WrittenItem[]) {
  const manifest = await findSandboxManifest({ sandboxId });
  if (!manifest) return;
  // Run again after a crash: a creation already in the manifest is not added twice.
  const fresh = changes.flatMap((change, index) =>
    change.change.action === "create" && manifest.items.some((m) => m.liveRef === done[index]?.ref)
      ? []
      : [{ change, done: done[index]! }],
  );
  await upsertSandboxManifest({
    ...manifest,
    items: manifestAfterApply(
      manifest.items,
      fresh.map((f) => f.change),
      fresh.map((f) => f.done),
    ),
  }).catch((error) => log.warn("could not record the applied versions in the manifest", { sandboxId, error }));
}

/**
 * What the live site answered, as the owner reads it. A drifted item is named as the live site calls it now (a
 * person's edit may have renamed it), else as it was called when the sandbox copied it: never by the title the
 * rehearsal gave it, which the live site never had (lib/changes/drift.ts).
 */
async function writeFailure(
  error: unknown,
  changes: LiveChange[],
  live: SiteClient,
  manifest: SandboxManifest | undefined,
): Promise<AppError> {
  if (isStaleItemsError(error)) {
    const titles = await currentTitles(
      live,
      error.items.map((stale) => stale.ref),
    );
    const items = error.items.map((stale) => {
      const entry = changes.find((c) => c.change.ref === stale.ref);
      const copied = manifest?.items.find((m) => m.liveRef === stale.ref)?.title;
      return {
        id: entry?.item.id ?? stale.ref,
        title: titles.get(stale.ref) ?? copied ?? entry?.title ?? stale.ref,
        reason:
          stale.reason === "missing"
            ? "It no longer exists on the live site."
            : "It was edited on the live site after the sandbox copy was made; applying would overwrite that edit.",
      };
    });
    return new AppError(
      "drifted",
      `Nothing was applied: ${items.map((i) => `"${i.title}"`).join(", ")} changed on the live site since the sandbox copy was made. Ask again to rehearse on the current version.`,
      { details: { items }, cause: error },
    );
  }
  const lost = isFilteredItemsError(error) ? error.lost.map((l) => `${l.field}: ${l.lost}`).join("; ") : "";
  return new AppError(
    "not_applicable",
    `Nothing was applied: the live site would have changed the content while saving it (${lost || "its filters"}).`,
    { cause: error },
  );
}

const auditApply = (run: ChangeRun, outcome: string, detail: string[]) =>
  auditChange({
    changeSetId: run.changeSetId,
    siteId: run.siteId,
    userId: run.userId,
    action: "apply",
    itemIds: contextOf(run).itemIds,
    outcome,
    detail: [run.resumedAt ? "Finished after a restart." : "", ...detail].join(" ").trim() || undefined,
  });

registerRunKind("replay", {
  // A bulk job's Apply (a queue run with `jobId`) counts on the job as its batches land; a chat rehearsal has no job.
  counters: { written: "applied", skipped: "skipped" },
  // What was written is in the run's entries until `completing` makes it a live change set.
  async written() {},
  async skipped(_run, entries) {
    const ids = entries.flatMap((e) => dataOf(e).madeLive);
    await transitionChangeItems({ ids, from: "applied", to: "failed", now: now() });
  },
  async completing(run, outcome) {
    // A job's Apply ends `done` once its run does, here or after a restart (before the run is marked done: a crash
    // between the two runs this again on takeover).
    if (run.jobId) await transitionJob({ id: run.jobId, from: ["applying"], to: "done", now: now() });
    const written = (await listRunEntries(run.id)).filter((e) => e.state === "written");
    if (written.length === 0) return;
    const changes = written.map(liveChangeOf);
    const done = written.map((e) => e.result as WrittenItem);
    const ctx = contextOf(run);
    const liveSetId =
      (await liveSetOf(run)) ??
      (
        await recordLive(
          { userId: run.userId },
          { id: run.changeSetId, siteId: run.siteId, conversationId: ctx.conversationId },
          changes,
          done,
          now,
          ctx.turnId,
        )
      ).changeSetId;
    // Everything written: every chosen item is live (as before runs); else only the written entries' items.
    const madeLive = outcome.skipped.length === 0 ? ctx.itemIds : written.flatMap((e) => dataOf(e).madeLive);
    await finishRehearsalApply({ itemIds: madeLive, liveChangeSetId: liveSetId, sets: [], now: now() });
    await recordManifest(ctx.sandboxId, changes, done);
  },
  async finished(run, outcome) {
    // Each claimed set's status from its items, once the run no longer holds it `applying`.
    await finishRehearsalApply({ itemIds: [], liveChangeSetId: "", sets: contextOf(run).sets, now: now() });
    const liveSetId = await liveSetOf(run);
    const skipped = [...(contextOf(run).refused ?? []), ...outcome.skipped];
    await auditApply(run, skipped.length ? "partial" : "ok", [
      liveSetId ? `live change set ${liveSetId}` : "nothing written",
      ...skipped.map((s) => `${s.title}: ${s.reason}`),
    ]);
  },
  async refused(run, error, entries, client) {
    const ctx = contextOf(run);
    await releaseRehearsals({ previous: new Map(Object.entries(ctx.previous)), now: now() });
    const manifest = await findSandboxManifest({ sandboxId: ctx.sandboxId });
    const answer = await writeFailure(error, entries.map(liveChangeOf), client, manifest);
    await auditApply(run, answer.code === "drifted" ? "drifted" : "failed", [answer.message]);
    return answer;
  },
});

export type Replay = {
  request: { userId: string };
  set: { id: string; siteId: string; conversationId: string };
  claimed: Map<string, ChangeSetStatus>;
  sandboxId: string;
  /** Every chosen item of the rehearsals, in the order the sandbox wrote them. */
  items: Array<{ id: string; ref: string }>;
  changes: LiveChange[];
  /** The live state of each target as read before the run (merged with a person's edits of other fields). */
  before: Map<string, Record<string, unknown> | null>;
  /**
   * A bulk job's Apply (docs/bulk-jobs.md, "In sandbox mode"): a queue run, batch by batch, that skips and names an
   * item a person changed instead of refusing the whole Apply, counts on the job and ends it `done`; `refused` are
   * the items the replay cannot apply at all (already `failed` and counted).
   */
  job?: { id: string; refused: RunSkipped[] };
};

/**
 * Writes a replay as one durable run on the rehearsal (recorded before the write, finished by the next instance if
 * this process dies): one atomic batch for a chat rehearsal, batches that skip a drifted item for a job's
 * (`replay.job`). Returns the outcome and the live change set it recorded, if anything was written. A refusal of an
 * atomic run throws the rehearsal's answer (`409 drifted` naming the items); other failures leave the run to the
 * sweeper, the rehearsal (and the job) `applying`.
 */
export async function replayAsRun(
  replay: Replay,
  live: SiteClient,
): Promise<{ outcome: RunOutcome; liveSetId?: string }> {
  const madeLive = (ref: string) => replay.items.filter((item) => item.ref === ref).map((item) => item.id);
  const at = now();
  const { job } = replay;
  const run = await startRun({
    kind: "replay",
    mode: job ? "queue" : "atomic",
    changeSetId: replay.set.id,
    jobId: job?.id ?? null,
    userId: replay.request.userId,
    siteId: replay.set.siteId,
    context: {
      sets: [...replay.claimed.keys()],
      previous: Object.fromEntries(replay.claimed),
      sandboxId: replay.sandboxId,
      conversationId: replay.set.conversationId,
      // A job's live set is named by its turn (`job:`), so Undo takes it as a queue (lib/changes/kind.ts).
      turnId: job ? `job:${job.id}:apply-${at.getTime()}` : `apply-${replay.set.id}-${at.getTime()}`,
      itemIds: replay.items.map((item) => item.id),
      ...(job ? { refused: job.refused } : {}),
    } satisfies ReplayContext,
    // The sweeper releases a claim left without a run past the lease (lib/workflows/resume-runs.ts): a process that
    // stalled that long records nothing over it.
    claim: { sets: [...replay.claimed.keys()], jobId: job?.id ?? null },
    entries: replay.changes.map((entry) => ({
      itemId: entry.item.id,
      title: entry.title,
      change: entry.change,
      data: {
        kind: entry.kind,
        sandboxRef: entry.sandboxRef,
        item: { id: entry.item.id, summary: entry.item.summary, before: entry.item.before, after: entry.item.after },
        madeLive: madeLive(entry.item.ref),
        before: replay.before.get(entry.change.ref) ?? null,
      } satisfies ReplayData,
    })),
  });
  const outcome = await driveRun(run, live);
  return { outcome, liveSetId: await liveSetOf(run) };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
