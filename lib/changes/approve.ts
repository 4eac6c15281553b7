/**
 * The owner's click on a pending live change set from Sitewright's own pages (the review page an MCP client links
 * to; docs/mcp.md): Approve writes exactly the items that wait (of those the page drew, `upTo`: never one added
 * after it was drawn), each over the version it was planned against, in
 * one conditional batch, as a durable run (./journal.ts); Deny closes them. The items are claimed all or none
 * (`pending` → `writing`; Approve's in its run's own record), so a double click or two tabs write the site at most once.
 */
import { now } from "@/lib/clock";
import { isClaimTakenError, refreshChangeSetStatus, transitionChangeItems } from "@/lib/db/queries";
import type { ChangeItem } from "@/lib/db/schema";
import { AppError } from "@/lib/errors";
import type { SiteClient } from "@/lib/sites/types";
import { auditChange, getChangeSet, itemsCovered, type PublicChangeSet, publicChangeSet } from "./change-sets";
import { chainWrites } from "./chains";
import { approveAsRun } from "./runs";

/**
 * The click: which set, and what it covers (API.md v1.3): the chosen items (`itemIds`), or every item up to the last
 * one the page drew (`upTo`), or, with neither, every item that waits.
 */
export type PendingRequest = {
  userId: string;
  siteId: string;
  changeSetId: string;
  itemIds?: string[];
  upTo?: string;
};

const notApplicable = (message: string) => new AppError("not_applicable", message);
const beingApproved = () => notApplicable("This change set is being approved already.");

async function pendingItems(request: PendingRequest) {
  const set = await getChangeSet(request);
  if (set.target !== "live") throw notApplicable("A sandbox change set is applied or discarded, not approved.");
  const items = itemsCovered(set.items, request).filter((item) => item.status === "pending");
  if (items.length === 0) throw notApplicable("Nothing in this change set waits for approval.");
  return { set, items };
}

/** Deny's claim, in one statement (`pending → writing`, all or none): a second click closes nothing. */
async function claim(items: ChangeItem[]): Promise<string[]> {
  const claimed = await transitionChangeItems({
    ids: items.map((i) => i.id),
    from: "pending",
    to: "writing",
    now: now(),
  });
  if (claimed.length !== items.length) {
    await transitionChangeItems({ ids: claimed, from: "writing", to: "pending", now: now() });
    throw beingApproved();
  }
  return claimed;
}

/**
 * Writes what waits, as one durable run (./runs.ts): recorded before the write, finished by another instance if this
 * one dies; a stale or filtered answer refuses the whole set (`409 drifted` naming the items, nothing written). The
 * items are claimed (`pending → writing`, all or none) in the transaction that records the run, and the click's audit
 * row follows the record: a process that dies at any point leaves no claim without its run.
 */
export async function approvePendingChangeSet(request: PendingRequest, client: SiteClient): Promise<PublicChangeSet> {
  const { set, items } = await pendingItems(request);
  chainWrites(items, set.items); // a chain that cannot be written is refused before anything is claimed
  const audit = () =>
    auditChange({
      changeSetId: set.id,
      siteId: set.siteId,
      userId: request.userId,
      action: "approve",
      itemIds: items.map((i) => i.id),
      outcome: "ok",
    });
  try {
    await approveAsRun({ ...request, siteId: set.siteId }, items, client, false, { take: true, recorded: audit });
  } catch (error) {
    if (isClaimTakenError(error)) throw beingApproved();
    throw error;
  }
  return publicChangeSet(await getChangeSet(request));
}

export async function denyPendingChangeSet(request: PendingRequest): Promise<PublicChangeSet> {
  const { set, items } = await pendingItems(request);
  const claimed = await claim(items);
  const at = now();
  await transitionChangeItems({ ids: claimed, from: "writing", to: "denied", now: at });
  await refreshChangeSetStatus({ id: set.id, now: at });
  await auditChange({
    changeSetId: set.id,
    siteId: set.siteId,
    userId: request.userId,
    action: "deny",
    itemIds: claimed,
    outcome: "denied",
  });
  return publicChangeSet(await getChangeSet(request));
}
