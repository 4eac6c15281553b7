/**
 * The two kinds of durable run on a live change set (./journal.ts): `approve` writes items waiting for the owner's
 * click (a turn's set as one all-or-nothing batch, a job's queue in batches that skip what a person changed), `undo`
 * puts written items back. What each records beside its writes is here, so a run another instance resumes after a
 * restart finishes exactly as the one that started it would have.
 */
import { now } from "@/lib/clock";
import {
  getChangeSetItems,
  recordItemWritten,
  refreshChangeSetStatus,
  transitionChangeItems,
  transitionJob,
} from "@/lib/db/queries";
import type { ChangeItem, ChangeRun, ChangeRunEntry } from "@/lib/db/schema";
import { AppError } from "@/lib/errors";
import type { SiteClient } from "@/lib/sites/types";
import { auditChange } from "./change-sets";
import { currentTitles, titleAfter } from "./drift";
import {
  abandonRun,
  driveRun,
  isLeaseLostError,
  isRunRefusal,
  LeaseLostError,
  registerRunKind,
  type RunOutcome,
  startRun,
} from "./journal";
import { type ChainedWrite, chainUndos, chainWrites } from "./chains";
import { isFilteredItemsError, isStaleItemsError } from "@/lib/sites/items";

/** The items an entry writes: its own, or every item of a chain merged into it (./chains.ts). */
const itemsOf = (entry: { itemId: string; data?: Record<string, unknown> }): string[] =>
  Array.isArray(entry.data?.itemIds) ? (entry.data.itemIds as string[]) : [entry.itemId];
const ids = (entries: Array<{ itemId: string; data?: Record<string, unknown> }>) => entries.flatMap(itemsOf);

/** The run's one audit row: what came of the click (`ok`, `partial`, `drifted`...), and why. */
async function auditRun(run: ChangeRun, outcome: string, reasons: string[]) {
  await auditChange({
    changeSetId: run.changeSetId,
    siteId: run.siteId,
    userId: run.userId,
    action: run.kind === "undo" ? "undo" : "write",
    itemIds: (run.context.itemIds as string[] | undefined) ?? [],
    outcome,
    detail: [run.resumedAt ? "Finished after a restart." : "", ...reasons].join(" ").trim() || undefined,
  });
}

const audited = (run: ChangeRun, outcome: RunOutcome) =>
  auditRun(
    run,
    outcome.skipped.length ? "partial" : "ok",
    outcome.skipped.map((s) => `${s.title}: ${s.reason}`),
  );

/** A job's Apply ends `done` once nothing waits in its queue, else `ready` again for the rest. */
async function settle(run: ChangeRun) {
  const set = await refreshChangeSetStatus({ id: run.changeSetId, now: now() });
  if (run.jobId && run.kind === "approve")
    await transitionJob({
      id: run.jobId,
      from: ["applying"],
      to: set?.status === "pending" ? "ready" : "done",
      now: now(),
    });
}

/** What a refusal of the whole set says: each item named as the site calls it now (./drift.ts). */
async function refusal(
  client: SiteClient,
  error: unknown,
  entries: ChangeRunEntry[],
  words: { nothing: string; reason: (missing: boolean) => string; tail: string },
): Promise<AppError> {
  if (isFilteredItemsError(error)) {
    const lost = error.lost.map((l) => `${l.field}: ${l.lost}`).join("; ");
    return new AppError(
      "not_applicable",
      `${words.nothing}: the site would have stored something other than what was planned (${lost}).`,
      { cause: error },
    );
  }
  const stale = isStaleItemsError(error) ? error.items : [];
  const titles = await currentTitles(
    client,
    stale.map((s) => s.ref),
  );
  const items = stale.map((s) => {
    const entry = entries.find((e) => e.change.ref === s.ref);
    return {
      id: entry?.itemId ?? s.ref,
      title: titles.get(s.ref) ?? entry?.title ?? s.ref,
      reason: words.reason(s.reason === "missing"),
    };
  });
  const names = [...new Set(items.map((i) => `“${i.title}”`))].join(", ");
  return new AppError("drifted", `${words.nothing}: ${names} changed on the site ${words.tail}`, {
    details: { items },
    cause: error,
  });
}

registerRunKind("approve", {
  counters: { written: "applied", skipped: "skipped" },
  async written(_run, batch) {
    for (const { entry, done } of batch)
      for (const id of itemsOf(entry))
        await recordItemWritten({
          id,
          ref: done.ref,
          afterState: done.after,
          versionAfter: done.version,
          revisionId: done.revisionId ?? null,
          now: now(),
        });
  },
  async skipped(_run, entries) {
    await transitionChangeItems({ ids: ids(entries), from: "writing", to: "failed", now: now() });
  },
  async finished(run, outcome) {
    await settle(run);
    await audited(run, outcome);
  },
  async refused(run, error, entries, client) {
    await transitionChangeItems({ ids: ids(entries), from: "writing", to: "failed", now: now() });
    await settle(run);
    const answer = await refusal(client, error, entries, {
      nothing: "Nothing was written",
      reason: () => "It was changed on the site after the change was proposed.",
      tail: "after this change was proposed. Ask again to propose it on the current version.",
    });
    await auditRun(run, answer.code === "drifted" ? "drifted" : "filtered", [answer.message]);
    return answer;
  },
});

registerRunKind("undo", {
  async written(_run, batch) {
    await transitionChangeItems({
      ids: ids(batch.map((b) => b.entry)),
      from: "undoing",
      to: "undone",
      now: now(),
    });
  },
  async skipped(_run, entries) {
    await transitionChangeItems({ ids: ids(entries), from: "undoing", to: "applied", now: now() });
  },
  async finished(run, outcome) {
    await settle(run);
    await audited(run, outcome);
  },
  async refused(run, error, entries, client) {
    await transitionChangeItems({ ids: ids(entries), from: "undoing", to: "applied", now: now() });
    await settle(run);
    const answer = await refusal(client, error, entries, {
      nothing: "Nothing was undone",
      reason: (missing) =>
        missing
          ? "It no longer exists on the site."
          : "It was changed on the site after Sitewright's edit, so undoing would overwrite that newer edit.",
      tail: "after Sitewright's edit. Undoing would overwrite that newer edit.",
    });
    await auditRun(run, answer.code === "drifted" ? "drifted" : "filtered", [answer.message]);
    return answer;
  },
});

type RunRequest = { userId: string; siteId: string; changeSetId: string; jobId?: string | null };

/** One run entry per change: a chain's items merged into one change name every item they write. */
const entryOf = (write: ChainedWrite, title: string) => ({
  itemId: write.items[0]!.id,
  title,
  change: write.change,
  ...(write.items.length > 1 ? { data: { itemIds: write.items.map((i) => i.id) } } : {}),
});

/**
 * Records the run that writes claimed (`writing`) items, before anything is sent; the set reads `applying`. `take`:
 * the items are still `pending` and are claimed in the run's own transaction (`ClaimTakenError` when some are not).
 */
async function recordApproveRun(request: RunRequest, items: ChangeItem[], queue: boolean, take = false) {
  const writes = chainWrites(items, await getChangeSetItems(request.changeSetId));
  const run = await startRun({
    kind: "approve",
    mode: queue ? "queue" : "atomic",
    ...request,
    context: { itemIds: items.map((i) => i.id) },
    entries: writes.map((write) => entryOf(write, write.items[0]!.title)),
    // A job's claim is released by the sweeper when no run follows it (lib/workflows/resume-runs.ts).
    ...(request.jobId ? { claim: { jobId: request.jobId, writing: items.map((i) => i.id) } } : {}),
    ...(take ? { take: { ids: items.map((i) => i.id), from: "pending" as const, to: "writing" as const } } : {}),
  });
  await refreshChangeSetStatus({ id: request.changeSetId, now: now() });
  return run;
}

/**
 * How a click's run is recorded. `take`: its items are still waiting and are claimed in the run's own transaction
 * (`ClaimTakenError`, nothing claimed or recorded, when some are not), so no death can leave a claim without its run;
 * `recorded`: what the click writes once its run is recorded, before anything is sent (its audit row).
 */
export type RunOptions = { take?: boolean; recorded?: () => Promise<void> };

/**
 * Writes claimed (`writing`) items as one durable run: atomic for a turn's set, a queue for a job's. Items of one
 * target in the set go in plan order, versions chained (./chains.ts; the callers checked the chains before claiming).
 */
export async function approveAsRun(
  request: RunRequest,
  items: ChangeItem[],
  client: SiteClient,
  queue: boolean,
  options: RunOptions = {},
) {
  const run = await recordApproveRun(request, items, queue, options.take);
  await options.recorded?.();
  return driveRun(run, client);
}

/**
 * The chat's approval of a card (lib/agent/writes.ts): the same atomic run as the review page's Approve, so a process
 * that dies mid-write leaves it to the next instance. A failure that says nothing about the items while this process
 * lives closes the run instead (what reached the site, if the site can tell, is recorded; the rest `failed`) and is
 * thrown when nothing was written: the model tells the owner so, and nothing is written behind that answer later.
 * A refusal throws the kind's answer (`isRunRefusal`, its `cause` the site's); a takeover, `LeaseLostError`.
 */
export async function approveCallAsRun(request: RunRequest, items: ChangeItem[], client: SiteClient) {
  // Claimed with the run's record, in one transaction: a process that dies between the two cannot leave a claim.
  const run = await recordApproveRun(request, items, false, true);
  try {
    return await driveRun(run, client, { holdOnFailure: true });
  } catch (error) {
    if (isRunRefusal(error) || isLeaseLostError(error)) throw error;
    const outcome = await abandonRun(run, client, `Not written: ${error instanceof Error ? error.message : error}`);
    if (!outcome) throw new LeaseLostError(run.id);
    await settle(run);
    if (outcome.written === 0) throw error;
    await audited(run, outcome);
    return outcome;
  }
}

/**
 * Undoes claimed (`undoing`) items (or, with `take`, written ones it claims) as one durable run, newest write first (a later write may rest on an earlier);
 * a chain of changes to one target is undone as one change, back to the state before its first item.
 */
export async function undoAsRun(
  request: RunRequest,
  items: ChangeItem[],
  client: SiteClient,
  queue: boolean,
  options: RunOptions = {},
) {
  const reverses = chainUndos(items, await getChangeSetItems(request.changeSetId));
  const run = await startRun({
    kind: "undo",
    mode: queue ? "queue" : "atomic",
    ...request,
    context: { itemIds: items.map((i) => i.id) },
    entries: reverses.map((reverse) => entryOf(reverse, titleAfter(reverse.items.at(-1)!))),
    // Claimed (`applied → undoing`) with the run's record: all or none.
    ...(options.take
      ? { take: { ids: items.map((i) => i.id), from: "applied" as const, to: "undoing" as const } }
      : {}),
  });
  await refreshChangeSetStatus({ id: request.changeSetId, now: now() });
  await options.recorded?.();
  return driveRun(run, client);
}
