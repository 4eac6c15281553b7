/**
 * Use case: a bulk job (docs/bulk-jobs.md). The agent describes a selection and one change per item; the job is
 * stored, its selection counted before anything runs, and a runner outside the chat request plans the items in
 * batches into one change set — writing at once what visitors cannot see, leaving the rest pending for the owner's
 * review as one queue. The runner holds the job under a lease, moves its cursor in the same transaction as the items
 * it planned, and picks the job up again after a restart, so no item is planned or written twice.
 * In sandbox mode the job's change set is a rehearsal of the conversation's sandbox: the selection is counted on the
 * live site, the items are copied into the sandbox as the runner reaches them, and every item is written there at
 * once (nothing visitors see changes); Apply replays them on the live site (./job-rehearsal.ts).
 */
import { randomUUID } from "node:crypto";
import { OperationError } from "@/lib/agent/operations/operation";
import type { writeJobTexts } from "@/lib/agent/job-writer";
import { now } from "@/lib/clock";
import { needsClick, seeVisibility } from "@/lib/agent/call-operation";
import { type PlannedItem, planPostUpdate, planValueUpdate } from "@/lib/changes/plan";
import { type ChangeSetPage, showChangeSetPage } from "@/lib/changes/change-sets";
import { approveQueue, rejectQueue, type Skipped, undoQueue, writeSkippingDrift } from "@/lib/changes/queue";
import { readItems, type SiteItem } from "@/lib/sites/items";
import {
  addJobProgress,
  claimJob,
  countOpenJobs,
  ensureChangeSet,
  findJob,
  findJobByChangeSet,
  findRunningRun,
  findChangeItem,
  countPendingUpTo,
  findChangeSet,
  findSiteById,
  getChangeSetItems,
  holdVisibleItem,
  markChangeItemApplied,
  transitionChangeItems,
  insertJob,
  jobItemCounts,
  listChangeSetRefs,
  NO_PROGRESS,
  recordPlannedBatch,
  refreshChangeSetStatus,
  releaseJob,
  transitionJob,
  type ChangeItemInsert,
} from "@/lib/db/queries";
import type { ChangeTarget, ItemChange, Job, JobProgress, Site } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { countsBeforePlanning, type JobCounts } from "@/lib/jobs/counts";
import { fieldFits, fieldTarget, type JobSpec, jobSpecSchema } from "@/lib/jobs/spec";
import { selectIds } from "@/lib/jobs/selection";
import { currentValue, type JobSubject, plannedFields, subjectFacts } from "@/lib/jobs/transform";
import { log } from "@/lib/log";
import { asJob, currentActor } from "@/lib/audit/actor-context";
import { recordAuditSafely } from "@/lib/audit/chain";
import type { JobSandbox } from "@/lib/sandbox/rehearsal";
import { siteClientFor } from "@/lib/sites/sites";
import { getSiteOfRecord } from "@/lib/teams/access";
import { resumeInterruptedRuns } from "./resume-runs";
import type { SiteClient } from "@/lib/sites/types";

export type JobView = {
  id: string;
  siteId: string;
  conversationId: string;
  changeSetId: string;
  status: Job["status"];
  selection: { description: string; count: number };
  progress: JobProgress;
  /** Every selected item in one count, from the job's items (lib/jobs/counts.ts): they add up to the selection. */
  counts: JobCounts;
  limits: Job["limits"];
  error?: string;
  /** When another instance took over the job's Apply or Undo after a restart (docs/bulk-jobs.md). */
  resumedAt?: string;
  createdAt: string;
  updatedAt: string;
};

export const jobView = (job: Job, counts: JobCounts): JobView => ({
  id: job.id,
  siteId: job.siteId,
  conversationId: job.conversationId,
  changeSetId: job.changeSetId,
  status: job.status,
  selection: { description: job.selection.description, count: job.selection.count },
  progress: { ...NO_PROGRESS, ...job.progress },
  counts,
  limits: job.limits,
  ...(job.error ? { error: job.error } : {}),
  ...(job.resumedAt ? { resumedAt: job.resumedAt.toISOString() } : {}),
  createdAt: job.createdAt.toISOString(),
  updatedAt: job.updatedAt.toISOString(),
});

/** The job as the owner's pages show it, with its counts read from its items now. */
export async function viewJob(job: Job): Promise<JobView> {
  const counts = (await jobItemCounts([job.id])).get(job.id) ?? countsBeforePlanning(job.selection.count);
  return jobView(job, counts);
}

type Deps = {
  siteClient(site: Site): SiteClient;
  writeTexts: typeof writeJobTexts;
  /** The rehearsal sandbox a sandbox-mode job runs in. */
  sandbox(input: { userId: string; id: string; live: SiteClient }): Promise<JobSandbox>;
};
// The model's SDK and the sandbox engine's client load when a job first needs them, not with this module, which
// the server loads at start to resume interrupted jobs (issue 39: the app's memory).
const defaults: Deps = {
  siteClient: (site) => siteClientFor(site),
  writeTexts: async (...args) => (await import("@/lib/agent/job-writer")).writeJobTexts(...args),
  sandbox: async (input) => (await import("@/lib/sandbox")).getSandboxManager().jobSandbox(input),
};
let override: Partial<Deps> | undefined;
/** Tests: a site client trusting the local test CA, a scripted writer; `undefined` restores the defaults. */
export function setJobDepsForTests(deps: Partial<Deps> | undefined) {
  override = deps;
}
const deps = (): Deps => ({ ...defaults, ...override });

/**
 * Starts a job for the agent's tool call: counts the selection first (on the live site, `client`), refuses what is
 * over the limits. With `sandboxId` (sandbox mode) the job rehearses in that sandbox: its change set is a rehearsal.
 */
export async function startBulkJob(input: {
  userId: string;
  siteId: string;
  conversationId: string;
  spec: JobSpec;
  client: SiteClient;
  sandboxId?: string;
}): Promise<JobView> {
  const { spec } = input;
  if (input.sandboxId && (spec.selection.type === "media" || fieldTarget(spec.change.field).ref === "seo"))
    throw new OperationError(
      "In sandbox mode a bulk job changes the content, title or excerpt of pages and posts; alt text, captions and SEO fields cannot be applied from a sandbox yet. Ask the owner to switch the chat to live mode for this job.",
      "job_unavailable",
    );
  const limits = {
    maxItems: env().BULK_JOB_MAX_ITEMS,
    maxTokens: env().BULK_JOB_MAX_TOKENS,
    maxMinutes: env().BULK_JOB_MAX_MINUTES,
  };
  if (!fieldFits(spec.change.field, spec.selection.type))
    throw new OperationError(`${spec.selection.type} items have no ${spec.change.field}.`, "invalid_input");
  if ((await countOpenJobs(input.userId)) >= env().BULK_JOBS_PER_USER)
    throw new OperationError("Another bulk job of yours is still running; wait for it or cancel it.", "job_limit");
  const ids = await selectIds(input.client, spec.selection, limits.maxItems);
  if (ids.length === 0) throw new OperationError(`Nothing matches: no ${spec.description}.`, "empty_selection");
  if (ids.length > limits.maxItems)
    throw new OperationError(
      `More than ${limits.maxItems} items match (${spec.description}); narrow the selection or ask the operator to raise BULK_JOB_MAX_ITEMS.`,
      "job_limit",
    );
  const at = now();
  const id = randomUUID();
  const changeSet = await ensureChangeSet({
    id: randomUUID(),
    userId: input.userId,
    siteId: input.siteId,
    conversationId: input.conversationId,
    turnId: `job:${id}`,
    target: input.sandboxId ? "sandbox" : "live",
    sandboxId: input.sandboxId ?? null,
    // The person who started it, by the job's door: its items are asked for by the job (docs/teams.md).
    requestedBy: asJob(currentActor()),
    now: at,
  });
  const job = await insertJob({
    id,
    userId: input.userId,
    siteId: input.siteId,
    conversationId: input.conversationId,
    changeSetId: changeSet.id,
    status: "planning",
    selection: { description: spec.description, count: ids.length, type: spec.selection.type, ids },
    spec: spec as unknown as Record<string, unknown>,
    limits,
    createdAt: at,
  });
  await recordAuditSafely({
    siteId: input.siteId,
    actor: asJob(currentActor()),
    action: "job_start",
    subject: { jobId: job.id, changeSetId: changeSet.id },
    details: { description: spec.description, count: ids.length, target: changeSet.target },
  });
  kickJobRunner();
  return jobView(job, countsBeforePlanning(ids.length));
}

/** A job's item is a plain write: it waits for the click only when visitors would see it. */
const JOB_WRITE = { risk: "write" } as const;

// ---- the runner ---------------------------------------------------------------------------------------------

const RUNNER_ID = randomUUID();
const LEASE_MS = 60_000;
let running: Promise<void> | undefined;

/** Starts the runner if it is idle (after a job is made, and at boot to resume what a restart left). */
export function kickJobRunner(): Promise<void> {
  running ??= runWhileWork().finally(() => {
    running = undefined;
  });
  return running;
}

async function runWhileWork() {
  for (;;) {
    const job = await claimJob({ owner: RUNNER_ID, now: now(), leaseMs: LEASE_MS });
    if (!job) return;
    try {
      await runJob(job);
    } catch (error) {
      log.error("bulk job failed", { error, jobId: job.id });
      await transitionJob({ id: job.id, from: ["planning"], to: "failed", now: now(), error: errorText(error) });
    } finally {
      await releaseJob({ id: job.id, owner: RUNNER_ID });
    }
  }
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 300);

/**
 * Where a job writes: the live site (ids as selected), or the conversation's rehearsal sandbox, where every item is
 * written at once and counted as `planned` (it waits for the owner's Apply; `applied` counts what is live).
 */
type Workplace = {
  client: SiteClient;
  rehearsal: boolean;
  /** Selected (live) ids → the ids the job works on there, copying into the sandbox what it lacks. */
  local(ids: number[]): Promise<Map<number, number>>;
};

async function workplaceFor(job: Job, live: SiteClient): Promise<Workplace> {
  const set = await findChangeSet({ id: job.changeSetId, userId: job.userId, siteId: job.siteId });
  if (set?.target !== "sandbox" || !set.sandboxId)
    return { client: live, rehearsal: false, local: async (ids) => new Map(ids.map((id) => [id, id])) };
  const sandbox = await deps()
    .sandbox({ userId: job.userId, id: set.sandboxId, live })
    .catch(() => {
      throw new Error("The sandbox this job rehearses in is gone (it expired or was deleted).");
    });
  return { client: sandbox.client, rehearsal: true, local: (ids) => sandbox.copyIn(ids) };
}

async function runJob(job: Job) {
  const site = await findSiteById({ siteId: job.siteId });
  if (site?.status !== "active") throw new Error("The site is not connected any more.");
  const place = await workplaceFor(job, deps().siteClient(site));
  const spec = jobSpecSchema.parse(job.spec);
  const deadline = job.createdAt.getTime() + job.limits.maxMinutes * 60_000;
  const batchSize = spec.change.kind === "write" ? 10 : 25;
  let tokens = job.progress.tokens ?? 0;
  await finishInterruptedWrites(place, job);
  for (let cursor = job.cursor; cursor < job.selection.ids.length; cursor += batchSize) {
    if (Date.now() > deadline) throw new Error(`The job ran over its ${job.limits.maxMinutes} minutes.`);
    if (spec.change.kind === "write" && tokens >= job.limits.maxTokens)
      throw new Error(`The job spent its ${job.limits.maxTokens} model tokens.`);
    const ids = job.selection.ids.slice(cursor, cursor + batchSize);
    const batch = await planBatch(place, job, spec, ids, site.url);
    tokens += batch.delta.tokens ?? 0;
    const stored = await recordPlannedBatch({
      id: job.id,
      owner: RUNNER_ID,
      cursor: cursor + ids.length,
      delta: batch.delta,
      items: batch.items,
      now: now(),
      leaseUntil: new Date(Date.now() + LEASE_MS),
    });
    if (!stored) return; // cancelled, or another runner holds it now
    await writeQuiet(
      place,
      job,
      batch.items.filter((item) => item.status === "writing"),
    );
  }
  const set = await refreshChangeSetStatus({ id: job.changeSetId, now: now() });
  // A rehearsal waits for Apply (pending) unless nothing was written in the sandbox at all.
  const waits = set?.status === "pending" && (!place.rehearsal || (await listChangeSetRefs(job.changeSetId)).size > 0);
  await transitionJob({ id: job.id, from: ["planning"], to: waits ? "ready" : "done", now: now() });
}

/** Reads a batch's items, computes each one's change, writes the invisible ones at once; returns what to store. */
async function planBatch(place: Workplace, job: Job, spec: JobSpec, selected: number[], siteUrl: string) {
  const { client } = place;
  const target = fieldTarget(spec.change.field).ref;
  const local = await place.local(selected);
  const ids = selected.flatMap((id) => (local.has(id) ? [local.get(id)!] : [])); // not copyable: gone since
  const known = await listChangeSetRefs(job.changeSetId);
  const fresh = ids.filter((id) => !known.has(`${target}:${id}`));
  const subjects = (await readSubjects(client, fresh, target === "seo")).filter((read) => stillMissing(spec, read));
  const delta: Partial<JobProgress> = { skipped: selected.length - subjects.length };
  let texts = new Map<number, string>();
  if (spec.change.kind === "write" && subjects.length > 0) {
    const written = await deps().writeTexts({
      field: spec.change.field,
      instruction: spec.change.instruction ?? "",
      client,
      siteUrl,
      items: subjects.map((s) => subjectFacts(s.subject) as Record<string, unknown> & { id: number }),
    });
    texts = written.texts;
    delta.tokens = written.tokens;
  }
  const plans: PlannedItem[] = [];
  for (const { subject, post, seo } of subjects) {
    const fields = plannedFields(spec.change, subject, texts.get(subject.id));
    if (!fields) {
      delta.skipped = (delta.skipped ?? 0) + 1;
      continue;
    }
    plans.push(planFor(fields.ref === post.ref ? post : seo!, fields.fields, subject.title));
  }
  // The job's door of the one rule (lib/agent/call-operation.ts): the site says what visitors would see.
  const where = place.rehearsal ? "sandbox" : "live";
  const seen = await seeVisibility(client, where, plans);
  return { items: batchRows(job, seen, delta, where), delta };
}

type Read = { subject: JobSubject; post: SiteItem; seo?: SiteItem };

/**
 * An item selected for lacking a field that has it now is left alone (counted as skipped): a person filled it in
 * since, or this job wrote it just before a crash kept the batch from being stored — and a model's second text
 * would then be a second write.
 */
const stillMissing = (spec: JobSpec, read: Read) =>
  !spec.selection.missing || currentValue(spec.selection.missing, read.subject) === "";

async function readSubjects(client: SiteClient, ids: number[], withSeo: boolean): Promise<Read[]> {
  if (ids.length === 0) return [];
  const refs = ids.flatMap((id) => (withSeo ? [`post:${id}`, `seo:${id}`] : [`post:${id}`]));
  const items = await readItems(client, refs);
  const reads: Read[] = [];
  for (const [index, id] of ids.entries()) {
    const post = items[withSeo ? index * 2 : index];
    const seo = withSeo ? items[index * 2 + 1] : undefined;
    if (!post?.exists || !post.state || (withSeo && !seo?.exists)) continue; // gone since selected: skipped
    reads.push({ subject: { id, title: post.title, post: post.state, seo: seo?.state ?? null }, post, seo });
  }
  return reads;
}

/** One item's plan; where visitors would see it is the site's to say (seeVisibility, in planBatch). */
function planFor(item: SiteItem, fields: Record<string, string>, title: string): PlannedItem {
  const summary = `Changed the ${Object.keys(fields).join(", ")} of “${title}”.`;
  if (!item.ref.startsWith("seo:")) return planPostUpdate(item, fields, summary);
  return { ...planValueUpdate(item, fields, summary, title), kind: "seo" };
}

/**
 * The batch's items as stored: visible ones wait in the queue (`pending`), invisible ones (as a draft is) are stored
 * as `writing` and written right after they are recorded — write-ahead, so a crash between the two leaves a row the
 * next runner finishes (finishInterruptedWrites), never a write the job's undo does not know. In a sandbox every
 * item is invisible to visitors: all are written at once.
 */
function batchRows(
  job: Job,
  plans: PlannedItem[],
  delta: Partial<JobProgress>,
  target: ChangeTarget,
): ChangeItemInsert[] {
  const at = now();
  const row = (plan: PlannedItem): ChangeItemInsert => ({
    id: randomUUID(),
    changeSetId: job.changeSetId,
    toolCallId: null,
    kind: plan.kind,
    ref: plan.ref,
    action: plan.action,
    title: plan.title,
    summary: plan.summary,
    before: plan.before,
    after: plan.after,
    visible: plan.visible,
    places: plan.places ?? null,
    change: plan.change,
    beforeState: plan.beforeState,
    versionRead: plan.versionRead,
    status: needsClick(JOB_WRITE, target, [plan]) ? "pending" : "writing",
    now: at,
  });
  const rows = plans.map(row);
  delta.planned = rows.filter((r) => r.status === "pending").length;
  return rows;
}

/**
 * Writes recorded invisible items; a person's newer edit skips the item (failed, named in the queue). Live, the
 * site checks each again as it writes: one visible by now (a page published since) joins the queue instead.
 */
async function writeQuiet(place: Workplace, job: Job, items: Array<{ id: string; title: string; change: ItemChange }>) {
  if (items.length === 0) return;
  const result = await writeSkippingDrift(
    place.client,
    items.map((item) => ({ item, change: item.change })),
    async (batch) => {
      for (const { item, done } of batch)
        await markChangeItemApplied({
          id: item.id,
          ref: done.ref,
          after: (item as { after?: unknown }).after ?? null,
          afterState: done.after,
          versionAfter: done.version,
          revisionId: done.revisionId ?? null,
          now: now(),
        });
    },
    { requireInvisible: !place.rehearsal },
  );
  await transitionChangeItems({ ids: result.skipped.map((s) => s.id), from: "writing", to: "failed", now: now() });
  for (const held of result.held) await holdVisibleItem({ ...held, now: now() });
  // In a sandbox a written item is planned (it waits for Apply); live it is applied. Held ones (visible by now) join
  // the queue: planned too.
  const written = place.rehearsal
    ? { planned: result.written + result.held.length }
    : { applied: result.written, planned: result.held.length };
  await addJobProgress({ id: job.id, delta: { ...written, skipped: result.skipped.length }, now: now() });
}

/**
 * Items a crashed runner recorded but may not have written: written already (the site holds the planned values)
 * → recorded as written; untouched (the version read) → written now; changed by a person since → skipped.
 */
async function finishInterruptedWrites(place: Workplace, job: Job) {
  const waiting = (await getChangeSetItems(job.changeSetId)).filter((item) => item.status === "writing");
  if (waiting.length === 0) return;
  const current = await readItems(
    place.client,
    waiting.map((item) => item.ref),
  );
  const toWrite: typeof waiting = [];
  for (const [index, item] of waiting.entries()) {
    const site = current[index];
    const fields = item.change.fields ?? {};
    const landed = site?.state && Object.entries(fields).every(([key, value]) => same(site.state?.[key], value));
    if (landed && site) {
      await markChangeItemApplied({
        id: item.id,
        ref: item.ref,
        after: item.after,
        afterState: site.state,
        versionAfter: site.version,
        now: now(),
      });
      await addJobProgress({ id: job.id, delta: { [place.rehearsal ? "planned" : "applied"]: 1 }, now: now() });
    } else toWrite.push(item);
  }
  await writeQuiet(place, job, toWrite);
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

// ---- the owner's actions ------------------------------------------------------------------------------------

export async function showJobForOwner(input: { userId: string; siteId: string; jobId: string }): Promise<JobView> {
  // `userId`: the account that started the job (a member's route checked the person's role: ./member-jobs.ts).
  await getSiteOfRecord(input);
  const job = await findJob({ id: input.jobId, userId: input.userId, siteId: input.siteId });
  if (!job) throw new AppError("not_found", "There is no such job.");
  // An Apply of the job a dead process left is taken over now (./resume-runs.ts), not at the next sweep.
  void resumeInterruptedRuns({ siteClient: deps().siteClient, changeSetId: job.changeSetId }).catch(() => undefined);
  return viewJob(job);
}

/** Stops planning, and rejects what still waits; what was written stays (undo is on the Changes page). */
export async function cancelJobForOwner(input: { userId: string; siteId: string; jobId: string }): Promise<JobView> {
  const shown = await showJobForOwner(input);
  const job = await transitionJob({ id: shown.id, from: ["planning", "ready"], to: "cancelled", now: now() });
  if (!job) throw new AppError("not_applicable", `This job is ${shown.status}; it cannot be cancelled.`);
  await rejectQueue({ userId: input.userId, siteId: input.siteId, changeSetId: job.changeSetId }).catch(
    () => undefined,
  );
  return viewJob(job);
}

/** Stops a job from planning further (its rehearsal is being discarded); its items stay as they are. */
export async function cancelJobPlanning(job: Job): Promise<void> {
  await transitionJob({ id: job.id, from: ["planning", "ready"], to: "cancelled", now: now() });
}

/** Is this change set a job's queue? (Then apply and undo skip drifted items instead of refusing the set.) */
export const jobForChangeSet = (changeSetId: string) => findJobByChangeSet(changeSetId);

export async function applyJobItems(
  request: { userId: string; siteId: string; changeSetId: string; itemIds?: string[]; upTo?: string },
  client: SiteClient,
  job: Job,
): Promise<{ skipped: Skipped[] }> {
  // While the job still plans, a click covers only what the owner's page drew; later items keep waiting.
  if (job.status === "planning" && !request.itemIds?.length && !request.upTo)
    throw new AppError(
      "not_applicable",
      "The job is still planning: approve the items shown, or wait until it is ready.",
    );
  // `applying` until the run ends (./journal.ts: `done`, or `ready` while items still wait), here or after a restart.
  if (job.status !== "planning")
    await transitionJob({ id: job.id, from: ["ready", "done"], to: "applying", now: now() });
  try {
    const result = await approveQueue({ ...request, jobId: job.id }, client);
    return { skipped: result.skipped };
  } catch (error) {
    // Refused before any run began: the job is as it was. A run under way is finished by the sweeper instead.
    if (job.status !== "planning" && !(await findRunningRun(job.changeSetId)))
      await transitionJob({ id: job.id, from: ["applying"], to: job.status, now: now() });
    throw error;
  }
}

/**
 * Undoes a job's written items (the chosen ones, or all). Undoing the whole job ends it: planning stops first (so
 * nothing more is written meanwhile), and what still waits is rejected, so nothing is left to approve or cancel.
 */
export async function undoJobItems(
  request: { userId: string; siteId: string; changeSetId: string; itemIds?: string[] },
  client: SiteClient,
  job?: Job,
): Promise<{ skipped: Skipped[] }> {
  const whole = job && !request.itemIds?.length;
  if (whole) await transitionJob({ id: job.id, from: ["planning"], to: "cancelled", now: now() });
  const result = await undoQueue(request, client);
  if (whole) await closeJob(request, job);
  return { skipped: result.skipped };
}

/** Rejects what still waits in the job's queue and marks a job that waited for review done. */
async function closeJob(request: { userId: string; siteId: string; changeSetId: string }, job: Job) {
  const waiting = (await getChangeSetItems(job.changeSetId)).some((item) => item.status === "pending");
  if (waiting) await rejectQueue({ userId: request.userId, siteId: request.siteId, changeSetId: job.changeSetId });
  await transitionJob({ id: job.id, from: ["ready"], to: "done", now: now() });
}

/** Rejects the chosen waiting items (or all); a job with nothing left waiting is done. */
export async function rejectJobItems(
  request: { userId: string; siteId: string; changeSetId: string; itemIds?: string[] },
  job: Job,
) {
  const result = await rejectQueue(request);
  const set = await refreshChangeSetStatus({ id: job.changeSetId, now: now() });
  if (set?.status !== "pending") await transitionJob({ id: job.id, from: ["ready"], to: "done", now: now() });
  return result;
}

/**
 * The job's review page: the job, its site, one page of its queue (100 items, each diff capped), and what its
 * "Approve all" covers: the waiting items up to the last one this page draws (`upTo`), never items planned later.
 */
export async function loadJobReview(input: { userId: string; siteId: string; jobId: string; cursor?: string }) {
  const site = await getSiteOfRecord(input);
  const job = await showJobForOwner(input);
  const page: ChangeSetPage = await showChangeSetPage({ ...input, changeSetId: job.changeSetId });
  const last = page.changeSet.items.at(-1);
  const mark = last ? await findChangeItem({ changeSetId: job.changeSetId, id: last.id }) : undefined;
  const approveAll = mark
    ? { upTo: mark.id, count: await countPendingUpTo({ changeSetId: job.changeSetId, seq: mark.seq }) }
    : { count: 0 };
  return { site: { id: site.id, url: site.url, name: site.name }, job, page, approveAll };
}
