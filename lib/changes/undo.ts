/**
 * Undo, apply and discard of a change set. Undo sends the reverse of every chosen item, newest first, as ONE
 * conditional batch to the plugin, each expecting the version our write left: if any item changed since (a person
 * edited it), the site writes nothing and the owner gets `409 drifted` naming the items. It runs as a durable run
 * (./journal.ts): a process that dies in the middle leaves it for another instance to finish.
 */
import { isClaimTakenError } from "@/lib/db/queries";
import { AppError } from "@/lib/errors";
import type { SiteClient } from "@/lib/sites/types";
import { getChangeSet, itemsCovered, publicChangeSet, type PublicChangeSet } from "./change-sets";
import { chainUndos } from "./chains";
import { undoAsRun } from "./runs";

export type ChangeSetRequest = {
  userId: string;
  siteId: string;
  changeSetId: string;
  itemIds?: string[];
  /** The last item the owner's page drew: the click covers it and the items before it (API.md v1.3). */
  upTo?: string;
};

const notApplicable = (message: string) => new AppError("not_applicable", message);

export async function undoChangeSet(request: ChangeSetRequest, client: SiteClient): Promise<PublicChangeSet> {
  const set = await getChangeSet(request);
  if (set.target !== "live") throw notApplicable("Sandbox change sets are discarded, not undone.");
  const covered = itemsCovered(set.items, request);
  if (request.itemIds?.length && covered.some((i) => i.status !== "applied"))
    throw notApplicable("Some of those items were not written or are already undone.");
  const chosen = covered.filter((i) => i.status === "applied");
  if (chosen.length === 0)
    throw notApplicable("Nothing in this change set can be undone: it was not written or is already undone.");

  chainUndos(chosen, set.items); // an earlier change chosen without a later one resting on it is refused
  try {
    // Claimed (`applied → undoing`, all or none) in the transaction that records the run: no claim without its run.
    await undoAsRun({ ...request, siteId: set.siteId }, chosen, client, false, { take: true });
  } catch (error) {
    if (isClaimTakenError(error)) throw notApplicable("This change set is being undone already.");
    throw error;
  }
  return publicChangeSet(await getChangeSet(request));
}
