/**
 * The owner's click on a pending live change set from Sitewright's own pages (the review page an MCP client links
 * to; docs/mcp.md): Approve writes exactly the items that wait, each over the version it was planned against, in
 * one conditional batch; Deny closes them. The items are claimed in one statement first (`pending` → `writing`), so
 * a double click or two tabs write the site at most once.
 */
import { now } from "@/lib/clock";
import { refreshChangeSetStatus, transitionChangeItems } from "@/lib/db/queries";
import type { ChangeItem } from "@/lib/db/schema";
import { AppError } from "@/lib/errors";
import type { SiteClient } from "@/lib/sites/types";
import { auditChange, getChangeSet, markPlanWritten, type PublicChangeSet, publicChangeSet } from "./change-sets";
import { currentTitles } from "./drift";
import { isFilteredItemsError, isStaleItemsError, writeItems } from "@/lib/sites/items";

export type PendingRequest = { userId: string; siteId: string; changeSetId: string };

const notApplicable = (message: string) => new AppError("not_applicable", message);

async function pendingItems(request: PendingRequest) {
  const set = await getChangeSet(request);
  if (set.target !== "live") throw notApplicable("A sandbox change set is applied or discarded, not approved.");
  const items = set.items.filter((item) => item.status === "pending");
  if (items.length === 0) throw notApplicable("Nothing in this change set waits for approval.");
  return { set, items };
}

async function claim(items: ChangeItem[]): Promise<string[]> {
  const claimed = await transitionChangeItems({
    ids: items.map((i) => i.id),
    from: "pending",
    to: "writing",
    now: now(),
  });
  if (claimed.length !== items.length) {
    await transitionChangeItems({ ids: claimed, from: "writing", to: "pending", now: now() });
    throw notApplicable("This change set is being approved already.");
  }
  return claimed;
}

/** `409 drifted` naming each item as the site calls it now (lib/changes/drift.ts). */
async function staleRefusal(client: SiteClient, items: ChangeItem[], staleItems: Array<{ ref: string }>) {
  const stale = items.filter((item) => staleItems.some((s) => s.ref === item.ref));
  const titles = await currentTitles(
    client,
    stale.map((item) => item.ref),
  );
  const titled = stale.map((item) => ({ item, title: titles.get(item.ref) ?? item.title }));
  const names = [...new Set(titled.map(({ title }) => `“${title}”`))].join(", ");
  return {
    audit: `${names} changed on the site after the change was proposed.`,
    error: new AppError(
      "drifted",
      `Nothing was written: ${names} changed on the site after this change was proposed. Ask again to propose it on the current version.`,
      {
        details: {
          items: titled.map(({ item, title }) => ({
            id: item.id,
            title,
            reason: "It was changed on the site after the change was proposed.",
          })),
        },
      },
    ),
  };
}

export async function approvePendingChangeSet(request: PendingRequest, client: SiteClient): Promise<PublicChangeSet> {
  const { set, items } = await pendingItems(request);
  const claimed = await claim(items);
  const audit = (outcome: string, detail?: string) =>
    auditChange({
      changeSetId: set.id,
      siteId: set.siteId,
      userId: request.userId,
      action: "write",
      itemIds: claimed,
      outcome,
      detail,
    });
  await auditChange({
    changeSetId: set.id,
    siteId: set.siteId,
    userId: request.userId,
    action: "approve",
    itemIds: claimed,
    outcome: "ok",
  });
  let done: Awaited<ReturnType<typeof writeItems>>;
  try {
    done = await writeItems(
      client,
      items.map((item) => item.change),
    );
  } catch (error) {
    const at = now();
    if (isStaleItemsError(error) || isFilteredItemsError(error)) {
      await transitionChangeItems({ ids: claimed, from: "writing", to: "failed", now: at });
      await refreshChangeSetStatus({ id: set.id, now: at });
      if (isStaleItemsError(error)) {
        const refusal = await staleRefusal(client, items, error.items);
        await audit("stale", refusal.audit);
        throw refusal.error;
      }
      const lost = error.lost.map((l) => `${l.field}: ${l.lost}`).join("; ");
      await audit("filtered", lost);
      throw notApplicable(`Nothing was written: the site would have changed the content while saving it (${lost}).`);
    }
    // No answer we understand: the plugin writes all or nothing, so the items wait again and the owner may retry.
    await transitionChangeItems({ ids: claimed, from: "writing", to: "pending", now: at });
    await audit("failed", error instanceof Error ? error.message : String(error));
    throw error;
  }
  await markPlanWritten(items, done);
  await audit("ok");
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
