/**
 * Undo, apply and discard of a change set. Undo sends the reverse of every chosen item, newest first, as ONE
 * conditional batch to the plugin, each expecting the version our write left: if any item changed since (a person
 * edited it), the site writes nothing and the owner gets `409 drifted` naming the items.
 */
import { now } from "@/lib/clock";
import { refreshChangeSetStatus, transitionChangeItems } from "@/lib/db/queries";
import type { ChangeItem } from "@/lib/db/schema";
import { AppError } from "@/lib/errors";
import type { SiteClient } from "@/lib/sites/types";
import { auditChange, getChangeSet, publicChangeSet, type PublicChangeSet } from "./change-sets";
import { currentTitles, titleAfter } from "./drift";
import { reverseChange } from "./plan";
import { isFilteredItemsError, isStaleItemsError, writeItems } from "@/lib/sites/items";

export type ChangeSetRequest = { userId: string; siteId: string; changeSetId: string; itemIds?: string[] };

const notApplicable = (message: string) => new AppError("not_applicable", message);

/** Why an item cannot be undone, in the owner's words. */
function driftReason(reason: string): string {
  return reason === "missing"
    ? "It no longer exists on the site."
    : "It was changed on the site after Sitewright's edit, so undoing would overwrite that newer edit.";
}

/** `409 drifted` naming each item as the site calls it now, else as Sitewright's edit left it (drift.ts). */
async function driftRefusal(client: SiteClient, stale: Array<{ ref: string; reason: string }>, chosen: ChangeItem[]) {
  const titles = await currentTitles(
    client,
    stale.map((s) => s.ref),
  );
  const items = stale.map((s) => {
    const item = chosen.find((i) => i.ref === s.ref);
    const title = titles.get(s.ref) ?? (item ? titleAfter(item) : s.ref);
    return { id: item?.id ?? s.ref, title, reason: driftReason(s.reason) };
  });
  const names = items.map((i) => `“${i.title}”`).join(", ");
  return {
    audit: items.map((i) => `${i.title}: ${i.reason}`).join(" "),
    error: new AppError(
      "drifted",
      `Nothing was undone: ${names} changed on the site after Sitewright's edit. Undoing would overwrite that newer edit.`,
      { details: { items } },
    ),
  };
}

export async function undoChangeSet(request: ChangeSetRequest, client: SiteClient): Promise<PublicChangeSet> {
  const set = await getChangeSet(request);
  if (set.target !== "live") throw notApplicable("Sandbox change sets are discarded, not undone.");
  const applied = set.items.filter((i) => i.status === "applied");
  let chosen: ChangeItem[];
  if (request.itemIds?.length) {
    const wanted = new Set(request.itemIds);
    chosen = set.items.filter((i) => wanted.has(i.id));
    if (chosen.length !== wanted.size)
      throw new AppError("not_found", "Some of those items are not in this change set.");
    if (chosen.some((i) => i.status !== "applied"))
      throw notApplicable("Some of those items were not written or are already undone.");
  } else {
    chosen = applied;
  }
  if (chosen.length === 0)
    throw notApplicable("Nothing in this change set can be undone: it was not written or is already undone.");

  const at = now();
  const claimed = await transitionChangeItems({
    ids: chosen.map((i) => i.id),
    from: "applied",
    to: "undoing",
    now: at,
  });
  if (claimed.length !== chosen.length) {
    await transitionChangeItems({ ids: claimed, from: "undoing", to: "applied", now: at });
    throw notApplicable("This change set is being undone already.");
  }

  // Reverse order of writing: a pending item written after its click may have been planned before a draft's write.
  const writtenAt = (i: ChangeItem) => i.appliedAt?.getTime() ?? 0;
  const newestFirst = [...chosen].sort((a, b) => writtenAt(b) - writtenAt(a) || b.seq - a.seq);
  const audit = (outcome: string, detail?: string) =>
    auditChange({
      changeSetId: set.id,
      siteId: set.siteId,
      userId: request.userId,
      action: "undo",
      itemIds: chosen.map((i) => i.id),
      outcome,
      detail,
    });
  try {
    await writeItems(client, newestFirst.map(reverseChange));
  } catch (error) {
    await transitionChangeItems({ ids: claimed, from: "undoing", to: "applied", now: now() });
    if (isStaleItemsError(error)) {
      const refusal = await driftRefusal(client, error.items, newestFirst);
      await audit("drifted", refusal.audit);
      throw refusal.error;
    }
    if (isFilteredItemsError(error)) {
      const lost = error.lost.map((l) => `${l.field}: ${l.lost}`).join("; ");
      await audit("filtered", lost);
      throw new AppError(
        "not_applicable",
        `Nothing was undone: the site would have stored something other than the earlier version (${lost}).`,
      );
    }
    await audit("failed", error instanceof Error ? error.message : String(error));
    throw error;
  }
  const done = now();
  await transitionChangeItems({ ids: claimed, from: "undoing", to: "undone", now: done });
  await refreshChangeSetStatus({ id: set.id, now: done });
  await audit("ok");
  return publicChangeSet(await getChangeSet(request));
}
