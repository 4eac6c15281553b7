/**
 * Durable Apply and Undo (API.md v1.3 "Durable writes"; docs/change-sets.md, "Durable Apply and Undo"). Every Apply
 * and Undo is a run: recorded with every change it will send, batch by batch, before the first write, and held under
 * a lease by the instance that runs it. Each batch is marked `writing` before it leaves and `written` (or `skipped`)
 * after the site answers. A process that dies leaves the run `running`; once its lease has expired another instance
 * takes it over (the sweeper: lib/workflows/resume-runs.ts), finds out from the site what the dead one's last batch
 * did (an item whose live state holds the planned values was written; one still at the version it expects was not;
 * anything else a person changed), and writes the rest, so no item is written twice or lost.
 * What a kind records beside its writes (items applied, undone, made live) is its hooks', registered once per kind.
 */
import { hostname } from "node:os";
import { randomUUID } from "node:crypto";
import { now } from "@/lib/clock";
import {
  type ChangeRunEntryInsert,
  type ClaimHeld,
  type ClaimTaken,
  completeEntries,
  type EntryOutcome,
  finishChangeRun,
  insertChangeRun,
  listRunEntries,
  markEntriesWriting,
  releaseRunLease,
  renewRunLease,
} from "@/lib/db/queries";
import type { ChangeRun, ChangeRunEntry, ChangeRunKind, ChangeRunMode, ItemChange, JobProgress } from "@/lib/db/schema";
import { env } from "@/lib/env";
import type { AppError } from "@/lib/errors";
import { processState } from "@/lib/process-state";
import type { SiteClient } from "@/lib/sites/types";
import {
  isFilteredItemsError,
  isStaleItemsError,
  readItems,
  type SiteItem,
  type WrittenItem,
  writeItems,
} from "@/lib/sites/items";

/** Changes per conditional batch (the plugin takes at most 50). */
export const RUN_BATCH = 25;

export type RunEntryInput = { itemId: string; title: string; change: ItemChange; data?: Record<string, unknown> };
export type RunSkipped = { id: string; title: string; reason: string };
export type RunOutcome = { written: number; skipped: RunSkipped[] };
export type WrittenEntry = { entry: ChangeRunEntry; done: WrittenItem };

/** What a kind does beside the writes; `written` and `skipped` may see a batch twice after a crash (idempotent). */
export type RunHooks = {
  written(run: ChangeRun, batch: WrittenEntry[]): Promise<void>;
  skipped(run: ChangeRun, entries: Array<ChangeRunEntry & { reason: string }>): Promise<void>;
  /** Before the run is marked done, while its lease is held: a crash here runs it again on takeover (idempotent). */
  completing?(run: ChangeRun, outcome: RunOutcome): Promise<void>;
  finished(run: ChangeRun, outcome: RunOutcome): Promise<void>;
  /** An atomic run the site refused as a whole (nothing written): what the owner is told. */
  refused(run: ChangeRun, error: unknown, entries: ChangeRunEntry[], client: SiteClient): Promise<AppError>;
  /** The job counters written and skipped entries add to, when the run belongs to a job. */
  counters?: { written?: keyof JobProgress; skipped?: keyof JobProgress };
};

const registry = processState("change-run-kinds", () => new Map<ChangeRunKind, RunHooks>());

export function registerRunKind(kind: ChangeRunKind, hooks: RunHooks) {
  registry.set(kind, hooks);
}

function hooksFor(kind: ChangeRunKind): RunHooks {
  const hooks = registry.get(kind);
  if (!hooks) throw new Error(`No hooks registered for change runs of kind ${kind}.`);
  return hooks;
}

/** This process, as a lease holder: another instance, or this one after a restart, is someone else. */
export const RUN_OWNER = processState("change-run-owner", () => `${hostname()}:${process.pid}:${randomUUID()}`);

export const leaseMs = () => env().CHANGE_RUN_LEASE_SECONDS * 1000;
export const leaseUntil = () => new Date(now().getTime() + leaseMs());

/** The lease was taken over by another instance (this one stalled past it): stop, it finishes the run. */
export class LeaseLostError extends Error {
  constructor(runId: string) {
    super(`Another instance took over change run ${runId}.`);
    this.name = "LeaseLostError";
  }
}

export const isLeaseLostError = (error: unknown): error is LeaseLostError =>
  error instanceof Error && error.name === "LeaseLostError";

/** Records a run and its entries (batches of RUN_BATCH in queue mode, one batch when atomic), leased to this process. */
export async function startRun(input: {
  kind: ChangeRunKind;
  mode: ChangeRunMode;
  changeSetId: string;
  jobId?: string | null;
  userId: string;
  siteId: string;
  context?: Record<string, unknown>;
  entries: RunEntryInput[];
  /** What the Apply claimed, still held when the run is recorded (else `ClaimReleasedError`, nothing recorded). */
  claim?: ClaimHeld;
  /** Items claimed in the run's own transaction (else `ClaimTakenError`, nothing claimed or recorded). */
  take?: ClaimTaken;
}): Promise<ChangeRun> {
  const entries: ChangeRunEntryInsert[] = input.entries.map((entry, seq) => ({
    seq,
    batch: input.mode === "atomic" ? 0 : Math.floor(seq / RUN_BATCH),
    itemId: entry.itemId,
    title: entry.title,
    change: entry.change,
    data: entry.data ?? {},
  }));
  return insertChangeRun({
    run: {
      id: randomUUID(),
      changeSetId: input.changeSetId,
      jobId: input.jobId ?? null,
      userId: input.userId,
      siteId: input.siteId,
      kind: input.kind,
      mode: input.mode,
      context: input.context ?? {},
      leaseOwner: RUN_OWNER,
      leaseUntil: leaseUntil(),
      createdAt: now(),
    },
    entries,
    ...(input.claim ? { claim: input.claim } : {}),
    ...(input.take ? { take: input.take } : {}),
  });
}

/** Renews the lease every third of it while `work` runs; `lost()` says when a renewal found it taken over. */
function heartbeat(run: ChangeRun) {
  let lost = false;
  const timer = setInterval(() => {
    void renewRunLease({ id: run.id, owner: RUN_OWNER, until: leaseUntil(), now: now() })
      .then((held) => {
        if (!held) lost = true;
      })
      .catch(() => undefined); // the next renewal or the next batch tries again
  }, leaseMs() / 3);
  timer.unref();
  return { stop: () => clearInterval(timer), lost: () => lost };
}

/**
 * Writes what is left of a run this process holds, batch by batch, then finishes it. A batch a dead process left
 * `writing` is checked on the site first. An atomic run the site refuses throws the kind's refusal; a failure that
 * says nothing about the items (the site is down) lets the lease go so the sweeper tries again, and is thrown (with
 * `holdOnFailure` the lease is kept, for a door that closes the run itself: `abandonRun`).
 */
export async function driveRun(
  run: ChangeRun,
  client: SiteClient,
  options: { holdOnFailure?: boolean } = {},
): Promise<RunOutcome> {
  const hooks = hooksFor(run.kind);
  const beat = heartbeat(run);
  try {
    const open = (await listRunEntries(run.id)).filter((e) => e.state === "pending" || e.state === "writing");
    const batches = [...new Set(open.map((e) => e.batch))].sort((a, b) => a - b);
    for (const number of batches) {
      if (beat.lost()) throw new LeaseLostError(run.id);
      let batch = open.filter((e) => e.batch === number);
      if (batch.some((e) => e.state === "writing")) batch = await reconcile(run, hooks, client, batch);
      await sendBatch(run, hooks, client, batch);
    }
    const outcome = outcomeOf(await listRunEntries(run.id));
    await hooks.completing?.(run, outcome);
    if (!(await finishChangeRun({ id: run.id, owner: RUN_OWNER, state: "done", outcome, now: now() })))
      throw new LeaseLostError(run.id);
    await hooks.finished(run, outcome);
    return outcome;
  } catch (error) {
    if (!isLeaseLostError(error) && !isRunRefusal(error) && !options.holdOnFailure)
      await releaseRunLease({ id: run.id, owner: RUN_OWNER, now: now() }).catch(() => undefined);
    throw error;
  } finally {
    beat.stop();
  }
}

const outcomeOf = (entries: ChangeRunEntry[]): RunOutcome => ({
  written: entries.filter((e) => e.state === "written").length,
  skipped: entries
    .filter((e) => e.state === "skipped")
    .map((e) => ({ id: e.itemId, title: e.title, reason: e.reason ?? "" })),
});

const REFUSED = Symbol.for("sitewright.run-refused");
/** The kind's answer to an atomic run the site refused as a whole (nothing written); its `cause` is the site's answer. */
export const isRunRefusal = (error: unknown): error is AppError =>
  typeof error === "object" && error !== null && REFUSED in error;

/**
 * Ends a run this process still holds without sending what is left, for a door that answers a failure it cannot judge
 * by closing the click rather than leaving it to the sweeper (a chat turn's approval: the model tells the owner it was
 * not written). A batch that left is checked on the site first, as a takeover would; what is still open is skipped
 * with `reason`. Null when another instance holds the run now.
 */
export async function abandonRun(run: ChangeRun, client: SiteClient, reason: string): Promise<RunOutcome | null> {
  if (!(await renewRunLease({ id: run.id, owner: RUN_OWNER, until: leaseUntil(), now: now() }))) return null;
  const hooks = hooksFor(run.kind);
  let open = (await listRunEntries(run.id)).filter((e) => e.state === "pending" || e.state === "writing");
  // What reached the site is recorded as written when the site can tell (a lost answer); the rest is closed.
  const sent = open.filter((e) => e.state === "writing");
  if (sent.length > 0) {
    const unsent = await reconcile(run, hooks, client, sent).catch(() => sent);
    open = [...open.filter((e) => e.state === "pending"), ...unsent];
  }
  await recordSkipped(
    run,
    hooks,
    open.map((e) => ({ ...e, reason })),
  );
  const outcome = outcomeOf(await listRunEntries(run.id));
  const state = outcome.written > 0 ? "done" : "refused";
  if (state === "done") await hooks.completing?.(run, outcome);
  return (await finishChangeRun({ id: run.id, owner: RUN_OWNER, state, outcome, now: now() })) ? outcome : null;
}

const EDITED = "A person changed it on the site after it was planned, so it was skipped and left as they made it.";
const GONE = "It no longer exists on the site.";
const FILTERED = "The site would have stored something else (a filter or another plugin), so it was skipped.";
const UNKNOWN_CREATION =
  "Sitewright stopped while creating it and cannot tell whether it was created: look for it on the site.";

async function record(run: ChangeRun, hooks: RunHooks, outcomes: EntryOutcome[]) {
  await completeEntries({ runId: run.id, outcomes, jobId: run.jobId, counters: hooks.counters, now: now() });
}

async function recordWritten(run: ChangeRun, hooks: RunHooks, batch: WrittenEntry[]) {
  if (batch.length === 0) return;
  await hooks.written(run, batch);
  await record(
    run,
    hooks,
    batch.map(({ entry, done }) => ({ seq: entry.seq, state: "written", result: done })),
  );
}

async function recordSkipped(run: ChangeRun, hooks: RunHooks, entries: Array<ChangeRunEntry & { reason: string }>) {
  if (entries.length === 0) return;
  await hooks.skipped(run, entries);
  await record(
    run,
    hooks,
    entries.map((e) => ({ seq: e.seq, state: "skipped", reason: e.reason })),
  );
}

/** Sends one batch; in queue mode a refused item is skipped (named) and the rest sent again. */
async function sendBatch(run: ChangeRun, hooks: RunHooks, client: SiteClient, entries: ChangeRunEntry[]) {
  let batch = entries;
  while (batch.length > 0) {
    if (!(await renewRunLease({ id: run.id, owner: RUN_OWNER, until: leaseUntil(), now: now() })))
      throw new LeaseLostError(run.id);
    if (
      !(await markEntriesWriting({
        runId: run.id,
        owner: RUN_OWNER,
        seqs: batch.map((e) => e.seq),
      }))
    )
      throw new LeaseLostError(run.id);
    try {
      const done = await writeItems(
        client,
        batch.map((e) => e.change),
      );
      await recordWritten(
        run,
        hooks,
        batch.map((entry, index) => ({ entry, done: done[index]! })),
      );
      return;
    } catch (error) {
      const refused = refusedRefs(error);
      if (!refused) throw error;
      if (run.mode === "atomic") throw await refuseRun(run, hooks, error, batch, client);
      const out = batch.filter((e) => refused.size === 0 || refused.has(e.change.ref));
      await recordSkipped(
        run,
        hooks,
        out.map((e) => ({ ...e, reason: refused.get(e.change.ref) ?? FILTERED })),
      );
      batch = batch.filter((e) => !out.includes(e));
    }
  }
}

/** An atomic run refused by the site: its entries skipped, the run `refused`, the kind's answer thrown. */
async function refuseRun(run: ChangeRun, hooks: RunHooks, error: unknown, batch: ChangeRunEntry[], client: SiteClient) {
  const reasons = refusedRefs(error) ?? new Map<string, string>();
  // The run ends first: the kind then settles the set's status, which a running run would hold at `applying`.
  await record(
    run,
    hooks,
    batch.map((e) => ({ seq: e.seq, state: "skipped", reason: reasons.get(e.change.ref) ?? FILTERED })),
  );
  await finishChangeRun({ id: run.id, owner: RUN_OWNER, state: "refused", outcome: { written: 0 }, now: now() });
  const answer = await hooks.refused(run, error, batch, client);
  return Object.assign(answer, { [REFUSED]: true });
}

/** The refs a stale or filtered answer names, with the owner's reason; an empty map names the whole batch. */
function refusedRefs(error: unknown): Map<string, string> | null {
  if (isStaleItemsError(error))
    return new Map(error.items.map((item) => [item.ref, item.reason === "missing" ? GONE : EDITED]));
  if (isFilteredItemsError(error))
    return new Map(error.lost.filter((l) => l.ref).map((l) => [l.ref!, `${FILTERED} (${l.field}: ${l.lost})`]));
  return null;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * A batch a dead process left `writing`: did the site write it? The plugin writes a batch all or nothing, and every
 * change names the version it expects, so per target: still at the expected version → not written (sent again);
 * holding every planned value → written (recorded, never sent again); anything else → a person changed it (skipped).
 * Returns the entries still to send.
 */
async function reconcile(run: ChangeRun, hooks: RunHooks, client: SiteClient, batch: ChangeRunEntry[]) {
  const creations = batch.filter((e) => e.change.ref === "post:new");
  const groups = new Map<string, ChangeRunEntry[]>();
  for (const e of batch)
    if (e.change.ref !== "post:new") groups.set(e.change.ref, [...(groups.get(e.change.ref) ?? []), e]);
  const live = new Map<string, SiteItem>();
  const refs = [...groups.keys()];
  for (let start = 0; start < refs.length; start += 50)
    for (const item of await readItems(client, refs.slice(start, start + 50))) live.set(item.ref, item);
  const toSend: ChangeRunEntry[] = [];
  const landed: WrittenEntry[] = [];
  const skipped: Array<ChangeRunEntry & { reason: string }> = creations.map((e) => ({
    ...e,
    reason: UNKNOWN_CREATION,
  }));
  for (const [ref, entries] of groups) {
    const item = live.get(ref);
    const verdict = item ? judge(item, entries) : "drifted";
    if (verdict === "unwritten") toSend.push(...entries);
    else if (verdict === "drifted")
      skipped.push(...entries.map((e) => ({ ...e, reason: item?.exists ? EDITED : GONE })));
    else for (const entry of entries) landed.push({ entry, done: landedAnswer(entry, item!) });
  }
  await recordWritten(run, hooks, landed);
  await recordSkipped(run, hooks, skipped);
  return toSend.sort((a, b) => a.seq - b.seq);
}

/** One target's entries against its live state: written, not written, or changed by someone else. */
function judge(item: SiteItem, entries: ChangeRunEntry[]): "written" | "unwritten" | "drifted" {
  const first = entries[0]!.change;
  const last = entries.at(-1)!.change;
  if (last.action === "delete")
    return !item.exists ? "written" : item.version === first.expect ? "unwritten" : "drifted";
  if (!item.exists || !item.state) return "drifted";
  if (item.version === first.expect) return "unwritten";
  const planned: Record<string, unknown> = {};
  for (const e of entries) Object.assign(planned, e.change.fields ?? {});
  if (last.action === "trash") planned.status = "trash";
  return Object.entries(planned).every(([key, value]) => same(item.state?.[key], value)) ? "written" : "drifted";
}

/** What the site would have answered for a write found landed: its state and version now. */
function landedAnswer(entry: ChangeRunEntry, item: SiteItem): WrittenItem {
  const before = entry.data.before;
  return {
    ref: item.ref,
    action: entry.change.action,
    title: item.title,
    before: before && typeof before === "object" ? (before as Record<string, unknown>) : null,
    after: item.exists ? item.state : null,
    version: item.exists ? item.version : null,
  };
}
