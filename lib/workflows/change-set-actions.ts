/**
 * What the change-set routes call: the owner's site is checked first (another user's site or set is `404`), then
 * the change set is listed, shown, undone, applied or discarded.
 */
import type { Job, Site } from "@/lib/db/schema";
import { getSandboxManager } from "@/lib/sandbox";
import { applyRehearsal, discardRehearsal } from "./apply-rehearsal";
import { siteClientFor } from "@/lib/sites/sites";
import { getSiteOfRecord } from "@/lib/teams/access";
import type { SiteClient } from "@/lib/sites/types";
import { scheduleVerification } from "./verify-change-set";
import { applyJobItems, cancelJobPlanning, jobForChangeSet, rejectJobItems, undoJobItems } from "./bulk-job";
import { applyJobRehearsal } from "./job-rehearsal";
import { editQueueItem, type Skipped } from "@/lib/changes/queue";
import {
  type ChangeSetList,
  type ChangeSetPage,
  getChangeSet,
  getWholeChangeItem,
  listSiteChangeSets,
  type PublicChangeItem,
  type PublicChangeSet,
  publicChangeSet,
  showChangeSetPage,
} from "@/lib/changes/change-sets";
import { type ChangeSetRequest, undoChangeSet } from "@/lib/changes/undo";
import { AppError } from "@/lib/errors";
import { type ChangeSetKind, changeSetKind } from "@/lib/changes/kind";

export type ChangeDeps = { siteClient(site: Site): SiteClient };

const defaultDeps: ChangeDeps = { siteClient: (site) => siteClientFor(site) };
let override: Partial<ChangeDeps> | undefined;

/** Tests: use another site client (e.g. one trusting the local test CA); `undefined` restores the default. */
export function setChangeDepsForTests(deps: Partial<ChangeDeps> | undefined) {
  override = deps;
}
const deps = (): ChangeDeps => ({ ...defaultDeps, ...override });

/**
 * The owner's site, the change set and its kind, loaded and checked in one call (another user's site or set is
 * `404` before the site's credentials are touched), so no action works out the kind again.
 */
export async function loadOwnedChangeSet(request: ChangeSetRequest): Promise<{
  site: Site;
  set: Awaited<ReturnType<typeof getChangeSet>>;
  job: Job | undefined;
  kind: ChangeSetKind;
}> {
  const site = await getSiteOfRecord(request);
  const set = await getChangeSet(request);
  const job = await jobForChangeSet(set.id);
  return { site, set, job, kind: changeSetKind(set, job) };
}

export async function listChangesForOwner(input: {
  userId: string;
  siteId: string;
  limit?: number;
  cursor?: string;
}): Promise<ChangeSetList> {
  const site = await getSiteOfRecord(input);
  return listSiteChangeSets({ ...input, siteId: site.id });
}

/** The diff route: the set and one page of its items, each side capped. */
export async function showChangeSetPageForOwner(
  request: ChangeSetRequest & { cursor?: string },
): Promise<ChangeSetPage> {
  await getSiteOfRecord(request);
  return showChangeSetPage(request);
}

export async function showChangeItemForOwner(
  request: ChangeSetRequest & { itemId: string },
): Promise<PublicChangeItem> {
  await getSiteOfRecord(request);
  return getWholeChangeItem(request);
}

export async function showChangeSetForOwner(request: ChangeSetRequest): Promise<PublicChangeSet> {
  await getSiteOfRecord(request);
  return publicChangeSet(await getChangeSet(request));
}

/** What Apply and Undo of a job's queue answer besides the set: the items skipped because a person changed them. */
export type QueueOutcome = PublicChangeSet & { skipped?: Skipped[] };

export async function undoChangeSetForOwner(request: ChangeSetRequest): Promise<QueueOutcome> {
  const { site, set: before, kind } = await loadOwnedChangeSet(request);
  // A job's queue, or the live set an Apply of a job's rehearsal wrote: undone as a queue.
  if (kind === "job") {
    const { skipped } = await undoJobItems(request, deps().siteClient(site));
    void scheduleVerification({ ...request, trigger: "undo" });
    return { ...publicChangeSet(await getChangeSet(request)), skipped };
  }
  const undone = await undoChangeSet(request, deps().siteClient(site));
  // Then the look at the live site, after the answer (docs/verification.md).
  const wasApplied = new Set(before.items.filter((i) => i.status === "applied").map((i) => i.id));
  const itemIds = undone.items.filter((i) => i.status === "undone" && wasApplied.has(i.id)).map((i) => i.id);
  void scheduleVerification({ ...request, trigger: "undo", itemIds });
  return { ...undone, verification: { status: "pending", urls: [] } };
}

export async function applyChangeSetForOwner(
  request: ChangeSetRequest & { changeSetIds?: string[] },
): Promise<QueueOutcome> {
  const { site, set, job, kind } = await loadOwnedChangeSet(request);
  // A rehearsal (sandbox change set) is replayed on the live site: ./apply-rehearsal.ts.
  if (kind === "rehearsal") {
    const outcome = job
      ? await applyJobRehearsal(request, deps().siteClient(site), getSandboxManager().rehearsals(), job)
      : { changeSet: await applyRehearsal(request, deps().siteClient(site), getSandboxManager().rehearsals()) };
    const applied = outcome.changeSet;
    const skipped = "skipped" in outcome ? { skipped: outcome.skipped } : {};
    if (applied.target !== "live") return { ...applied, ...skipped }; // a job whose every item was skipped
    // `applied` is the live change set the Apply wrote: look at the live site for it (docs/verification.md).
    void scheduleVerification({
      userId: request.userId,
      siteId: request.siteId,
      changeSetId: applied.id,
      trigger: "apply",
    });
    return { ...applied, verification: { status: "pending", urls: [] }, ...skipped };
  }
  if (kind === "job" && job) {
    const { skipped } = await applyJobItems(request, deps().siteClient(site), job);
    void scheduleVerification({ ...request, trigger: "write" });
    return { ...publicChangeSet(await getChangeSet(request)), skipped };
  }
  throw new AppError(
    "not_applicable",
    set.status === "pending"
      ? "This change waits for your approval: approve or deny it instead."
      : "This change set was made on the live site: it has nothing left to apply.",
  );
}

export async function discardChangeSetForOwner(request: ChangeSetRequest): Promise<PublicChangeSet> {
  const { job, kind } = await loadOwnedChangeSet(request);
  if (kind === "rehearsal") {
    // A job rehearsing in the sandbox stops first, so it writes nothing more into what is thrown away.
    if (job) await cancelJobPlanning(job);
    return discardRehearsal(request, getSandboxManager().rehearsals());
  }
  throw new AppError("not_applicable", "This change set was made on the live site: undo it instead of discarding it.");
}

/** A job's queue: the chosen waiting items (all when none are named) will never be written. */
export async function rejectQueueItemsForOwner(request: ChangeSetRequest): Promise<PublicChangeSet> {
  const { job } = await loadOwnedChangeSet(request);
  if (!job)
    throw new AppError("not_applicable", "Only a bulk job's queue is rejected item by item; deny this change instead.");
  await rejectJobItems(request);
  return publicChangeSet(await getChangeSet(request));
}

/** The owner's wording of one waiting item of a job's queue, before it is written. */
export async function editQueueItemForOwner(
  request: ChangeSetRequest & { itemId: string; after: Record<string, unknown> },
): Promise<PublicChangeItem> {
  const { job } = await loadOwnedChangeSet(request);
  if (!job)
    throw new AppError("not_applicable", "Only a bulk job's waiting items can be edited; ask the assistant instead.");
  await editQueueItem(request);
  return getWholeChangeItem(request);
}
