/**
 * A write the owner denied (or left unanswered) is not written, but the file its plan uploaded is already on the
 * site (not visible: nothing uses it). It is taken back as undo would take it back: deleted over the version
 * recorded at upload, kept by the plugin if something on the site uses it by now. A failure leaves the upload in
 * the change set, where the owner can still undo it.
 */
import { now } from "@/lib/clock";
import { auditChange, itemsOfToolCall } from "@/lib/changes/change-sets";
import { reverseChange } from "@/lib/changes/plan";
import { writeItems } from "@/lib/sites/items";
import { refreshChangeSetStatus, transitionChangeItems } from "@/lib/db/queries";
import { log } from "@/lib/log";
import type { SiteClient } from "@/lib/sites/types";

export async function takeBackDeniedUploads(
  client: SiteClient,
  scope: { conversationId: string; turnId: string; userId: string; siteId: string; toolCallId: string },
): Promise<void> {
  const uploads = (await itemsOfToolCall(scope)).filter(
    (i) => i.kind === "media" && i.action === "create" && i.status === "applied",
  );
  if (uploads.length === 0) return;
  const ids = await transitionChangeItems({
    ids: uploads.map((i) => i.id),
    from: "applied",
    to: "undoing",
    now: now(),
  });
  const claimed = uploads.filter((i) => ids.includes(i.id));
  if (claimed.length === 0) return;
  const changeSetId = claimed[0]!.changeSetId;
  try {
    await writeItems(client, claimed.map(reverseChange));
  } catch (error) {
    await transitionChangeItems({ ids, from: "undoing", to: "applied", now: now() });
    log.warn("could not take back the upload of a denied write; it stays in the change set", { error, changeSetId });
    return;
  }
  const at = now();
  await transitionChangeItems({ ids, from: "undoing", to: "undone", now: at });
  await refreshChangeSetStatus({ id: changeSetId, now: at });
  await auditChange({
    changeSetId,
    siteId: scope.siteId,
    userId: scope.userId,
    action: "undo",
    itemIds: ids,
    outcome: "ok",
    detail: "The write that used these uploads was not approved.",
  });
}
