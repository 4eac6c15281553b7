/**
 * A change set reviewed as a queue (a bulk job's: docs/bulk-jobs.md): the owner approves some items, rejects some,
 * edits one's proposed value, and undoes all or some — and unlike a turn's change set, an item a person changed
 * since is skipped and named instead of refusing the whole set. Writes go in batches, each one conditional batch of
 * the plugin's; a stale or filtered item is taken out of its batch and the rest is sent again.
 */
import { now } from "@/lib/clock";
import {
  findChangeItem,
  isClaimTakenError,
  refreshChangeSetStatus,
  transitionChangeItems,
  updatePendingChangeItem,
} from "@/lib/db/queries";
import type { ChangeItem, ItemChange, VisiblePlace } from "@/lib/db/schema";
import { AppError } from "@/lib/errors";
import type { SiteClient } from "@/lib/sites/types";
import { auditChange, getChangeSet, itemsCovered } from "./change-sets";
import { chainUndos, chainWrites } from "./chains";
import { approveAsRun, undoAsRun } from "./runs";
import {
  isFilteredItemsError,
  isStaleItemsError,
  isVisibleItemsError,
  type WrittenItem,
  writeItems,
} from "@/lib/sites/items";

export type QueueRequest = {
  userId: string;
  siteId: string;
  changeSetId: string;
  itemIds?: string[];
  /** The last item the owner's page drew: the click covers it and the items before it (API.md v1.3). */
  upTo?: string;
};
export type Skipped = { id: string; title: string; reason: string };

/** Items per conditional batch: small enough that a skipped item costs little, big enough to be quick. */
export const QUEUE_BATCH = 25;

const notApplicable = (message: string) => new AppError("not_applicable", message);

const EDITED = "A person changed it on the site after it was planned, so it was skipped and left as they made it.";
const GONE = "It no longer exists on the site.";
const FILTERED = "The site would have stored something else (a filter or another plugin), so it was skipped.";

/**
 * Writes each item's change, batch by batch; returns what was written per item and what was skipped, with why.
 * Throws only for failures that say nothing about one item (the site is down): what was written stays written.
 * With `requireInvisible` (items planned as unseen) an item the site finds visible now is taken out of its batch
 * unwritten and returned in `held`, with the places the site named: it waits for the owner's click instead.
 */
export async function writeSkippingDrift<Item extends { id: string; title: string }>(
  client: SiteClient,
  entries: Array<{ item: Item; change: ItemChange }>,
  onBatch?: (written: Array<{ item: Item; done: WrittenItem }>) => Promise<void>,
  options: { requireInvisible?: boolean } = {},
): Promise<{ written: number; skipped: Skipped[]; held: Array<{ id: string; places: VisiblePlace[] }> }> {
  const skipped: Skipped[] = [];
  const held: Array<{ id: string; places: VisiblePlace[] }> = [];
  let written = 0;
  for (let start = 0; start < entries.length; start += QUEUE_BATCH) {
    let batch = entries.slice(start, start + QUEUE_BATCH);
    while (batch.length > 0) {
      try {
        const done = await writeItems(
          client,
          batch.map((entry) => entry.change),
          options,
        );
        await onBatch?.(batch.map((entry, index) => ({ item: entry.item, done: done[index]! })));
        written += batch.length;
        break;
      } catch (error) {
        if (isVisibleItemsError(error)) {
          const seen = batch[error.visible.index] ?? batch.find((entry) => entry.change.ref === error.visible.ref);
          if (!seen) throw error;
          held.push({ id: seen.item.id, places: error.visible.places });
          batch = batch.filter((entry) => entry !== seen);
          continue;
        }
        const refused = refusedRefs(error);
        if (!refused) throw error;
        const out = batch.filter((entry) => refused.has(entry.change.ref) || refused.size === 0);
        for (const entry of out)
          skipped.push({
            id: entry.item.id,
            title: entry.item.title,
            reason: refused.get(entry.change.ref) ?? FILTERED,
          });
        batch = batch.filter((entry) => !out.includes(entry));
      }
    }
  }
  return { written, skipped, held };
}

/** The refs a stale or filtered answer names, with the owner's reason; an empty map names the whole batch. */
function refusedRefs(error: unknown): Map<string, string> | null {
  if (isStaleItemsError(error))
    return new Map(error.items.map((item) => [item.ref, item.reason === "missing" ? GONE : EDITED]));
  if (isFilteredItemsError(error))
    return new Map(error.lost.filter((l) => l.ref).map((l) => [l.ref!, `${FILTERED} (${l.field}: ${l.lost})`]));
  return null;
}

async function chosenItems(request: QueueRequest, status: ChangeItem["status"]) {
  const set = await getChangeSet(request);
  if (set.target !== "live") throw notApplicable("A sandbox change set is applied or discarded as a rehearsal.");
  const items = itemsCovered(set.items, request).filter((i) => i.status === status);
  return { set, items };
}

/** Claims items in one statement; a second click on the same items finds them claimed already. */
async function claim(items: ChangeItem[], from: ChangeItem["status"], to: ChangeItem["status"]) {
  const ids = await transitionChangeItems({ ids: items.map((i) => i.id), from, to, now: now() });
  if (ids.length === 0 && items.length > 0) throw notApplicable("These items are being written already.");
  const claimed = new Set(ids);
  return items.filter((i) => claimed.has(i.id));
}

/**
 * Runs a click over the chosen items, claiming them in its run's own record (./runs.ts, `take`): what another tab took
 * meanwhile is left out and the rest claimed again, all or none; a click that finds every item taken writes nothing.
 */
async function withFreeItems<T>(items: ChangeItem[], run: (free: ChangeItem[]) => Promise<T>): Promise<T> {
  let free = items;
  for (;;) {
    try {
      return await run(free);
    } catch (error) {
      if (!isClaimTakenError(error)) throw error;
      const still = new Set(error.free);
      const next = free.filter((i) => still.has(i.id));
      if (next.length === 0 || next.length === free.length)
        throw notApplicable("These items are being written already.");
      free = next;
    }
  }
}

/**
 * Approves the chosen pending items (all when none are named) as a durable run (./journal.ts): written in batches,
 * drifted ones skipped; `jobId` counts them in the job's progress batch by batch. A job's items are claimed first
 * (the sweeper releases a claim no run follows, lib/workflows/resume-runs.ts); a set without a job claims them in
 * its run's own record. The click's audit row follows the record.
 */
export async function approveQueue(request: QueueRequest & { jobId?: string }, client: SiteClient) {
  const { set, items } = await chosenItems(request, "pending");
  if (items.length === 0) throw notApplicable("None of those items waits for approval.");
  // A later change to an item chosen without the earlier one it rests on is refused, naming both (./chains.ts).
  chainWrites(items, set.items);
  const runOf = (chosen: ChangeItem[], take: boolean) =>
    approveAsRun({ ...request, siteId: set.siteId }, chosen, client, true, {
      take,
      recorded: () =>
        auditChange({
          changeSetId: set.id,
          siteId: set.siteId,
          userId: request.userId,
          action: "approve",
          itemIds: chosen.map((i) => i.id),
          outcome: "ok",
        }),
    });
  if (!request.jobId) return withFreeItems(items, (free) => runOf(free, true));
  return runOf(await claim(items, "pending", "writing"), false);
}

/** Rejects the chosen pending items: they will never be written. */
export async function rejectQueue(request: QueueRequest) {
  const { set, items } = await chosenItems(request, "pending");
  if (items.length === 0) throw notApplicable("None of those items waits for approval.");
  const claimed = await claim(items, "pending", "denied");
  await refreshChangeSetStatus({ id: set.id, now: now() });
  await auditChange({
    changeSetId: set.id,
    siteId: set.siteId,
    userId: request.userId,
    action: "deny",
    itemIds: claimed.map((i) => i.id),
    outcome: "denied",
  });
  return { rejected: claimed.length };
}

/** Undoes the chosen written items (all when none are named), newest first; items changed since are skipped. */
export async function undoQueue(request: QueueRequest & { jobId?: string }, client: SiteClient) {
  const { set, items } = await chosenItems(request, "applied");
  if (items.length === 0) throw notApplicable("None of those items is written, or they are undone already.");
  chainUndos(items, set.items);
  // Claimed (`applied → undoing`) in the run's own record: no death leaves a claim without its run.
  return withFreeItems(items, (free) =>
    undoAsRun({ ...request, jobId: null, siteId: set.siteId }, free, client, true, { take: true }),
  );
}

/**
 * The owner's own wording of one proposed value, before it is written: the same fields, new values of the same
 * type. Refused once the item is written (`409 not_applicable`).
 */
export async function editQueueItem(request: QueueRequest & { itemId: string; after: Record<string, unknown> }) {
  await getChangeSet(request); // the owner's set, or 404
  const item = await findChangeItem({ changeSetId: request.changeSetId, id: request.itemId });
  if (!item) throw new AppError("not_found", "There is no such item in this change set.");
  if (item.status !== "pending") throw notApplicable("This item is not waiting for approval any more.");
  const fields = item.change.fields ?? {};
  const keys = Object.keys(request.after);
  if (keys.length === 0 || keys.some((k) => !(k in fields) || typeof fields[k] !== typeof request.after[k]))
    throw new AppError(
      "invalid_input",
      `Give new values for the proposed fields only: ${Object.keys(fields).join(", ")}.`,
    );
  const after = { ...(item.after as Record<string, unknown>), ...request.after };
  const change = { ...item.change, fields: { ...fields, ...request.after } };
  const updated = await updatePendingChangeItem({ id: item.id, after, change });
  if (!updated) throw notApplicable("This item is not waiting for approval any more.");
  return updated;
}
