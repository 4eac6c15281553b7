/**
 * Use case: apply or discard a rehearsal (a sandbox change set; docs/rehearsal.md).
 * - Apply claims the chosen change sets in one transaction (`applying`), so parallel or repeated clicks, and an Apply
 *   racing a Discard, change the live site at most once; the loser answers `409 not_applicable`.
 * - What is written is exactly the chosen items' recorded after-state (lib/changes/replay.ts), in ONE conditional
 *   batch, each live item only over the version the sandbox was copied from; a person's live edit since is kept when
 *   it touched other fields, and is `409 drifted` naming the item and field when it touched the same one.
 * - The write is a durable run (./replay-run.ts): recorded before it is sent, finished by the next instance when this
 *   process dies mid-Apply, exactly as this one would have.
 * - An earlier change set of the sandbox that touched the same item and is not live makes it `409 superseded`, unless
 *   the owner chose it too (`changeSetIds`).
 * What was written becomes a live change set, undoable like any other; each rehearsal item records it (`madeLiveBy`).
 */
import { auditChange, getChangeSet, itemsCovered, publicChangeSet } from "@/lib/changes/change-sets";
import {
  type FieldConflict,
  findSupersession,
  type LiveChange,
  mergeLiveEdits,
  planReplay,
} from "@/lib/changes/replay";
import { readItems, type SiteItem } from "@/lib/sites/items";
import { now as clockNow } from "@/lib/clock";
import {
  claimRehearsalsForApply,
  discardRehearsalSet,
  findRunningRun,
  findSandboxManifest,
  hasPendingRehearsal,
  listSandboxItems,
  releaseRehearsals,
} from "@/lib/db/queries";
import type { ChangeItem, ChangeSetStatus, SandboxManifest } from "@/lib/db/schema";
import { AppError, isAppError } from "@/lib/errors";
import { log } from "@/lib/log";
import type { RehearsalSandboxAccess } from "@/lib/sandbox";
import { previewBase } from "@/lib/sandbox/preview";
import { replayAsRun } from "./replay-run";
import type { SiteClient } from "@/lib/sites/types";

export type RehearsalRequest = {
  userId: string;
  siteId: string;
  changeSetId: string;
  itemIds?: string[];
  /** The last item the owner's page drew: Apply covers it and the items before it (API.md v1.3). */
  upTo?: string;
  /** Other rehearsals of the same sandbox to apply in the same batch (their waiting items). */
  changeSetIds?: string[];
};

const notApplicable = (message: string, details?: Record<string, unknown>) =>
  new AppError("not_applicable", message, { ...(details ? { details } : {}) });

export type Chosen = { sets: string[]; items: ChangeItem[] };

/** Which items an Apply writes: every waiting item of the chosen sets, or the chosen items of this one. */
export async function chooseItems(request: RehearsalRequest): Promise<Chosen> {
  const set = await getChangeSet(request);
  if (set.target !== "sandbox")
    throw notApplicable("This change set was made on the live site: there is nothing to apply.");
  const others = [...new Set(request.changeSetIds ?? [])].filter((id) => id !== set.id);
  const sets = [set];
  for (const id of others) {
    const other = await getChangeSet({ ...request, changeSetId: id });
    if (other.target !== "sandbox" || other.sandboxId !== set.sandboxId) {
      throw notApplicable(`“${id}” is not a rehearsal in the same sandbox: apply it on its own.`);
    }
    sets.push(other);
  }
  const waiting = (items: ChangeItem[]) => items.filter((item) => item.status === "applied" && !item.madeLiveBy);
  if (!request.itemIds?.length && !request.upTo)
    return { sets: sets.map((s) => s.id), items: sets.flatMap((s) => waiting(s.items)) };
  const wanted = new Set(
    request.upTo ? waiting(itemsCovered(set.items, request)).map((item) => item.id) : request.itemIds,
  );
  const chosen = set.items.filter((item) => wanted.has(item.id));
  if (chosen.length !== wanted.size) throw new AppError("not_found", "Some of those items are not in this change set.");
  if (chosen.some((item) => item.status !== "applied"))
    throw notApplicable("Some of those items were never written in the sandbox.");
  if (chosen.some((item) => item.madeLiveBy))
    throw notApplicable("Some of those items were already applied to the live site.");
  // The sandbox holds one state per item: its changes in one set cannot be replayed one without the other.
  const split = waiting(set.items).find((item) => !wanted.has(item.id) && chosen.some((c) => c.ref === item.ref));
  if (split) {
    throw notApplicable(`Changes to "${split.title}" are applied together: choose all of them, or none.`, {
      items: [{ id: split.id, title: split.title, reason: "Another change to the same item was chosen." }],
    });
  }
  const alsoChosen = sets.slice(1).flatMap((s) => waiting(s.items));
  return { sets: sets.map((s) => s.id), items: [...chosen, ...alsoChosen] };
}

export function addresses(manifest: SandboxManifest, appUrl: string, sandboxId: string, endpoint: string | null) {
  const pairs: Array<[string, string]> = [];
  const liveUrl = (manifest.sourceUrl ?? "").replace(/\/+$/, "");
  if (manifest.sourceUploadsUrl) pairs.push([`${appUrl}/sandbox/media/${sandboxId}/`, manifest.sourceUploadsUrl]);
  if (liveUrl) {
    pairs.push([previewBase(appUrl, sandboxId), liveUrl]);
    // The sandbox's own address (what its driver answered), wherever it runs.
    if (endpoint) pairs.push([endpoint.replace(/\/+$/, ""), liveUrl]);
  }
  return pairs;
}

/** The live items a replay changes, as they are now (a creation has none), read in batches of the plugin's size. */
export async function liveItems(live: SiteClient, changes: LiveChange[]): Promise<Map<string, SiteItem>> {
  const refs = [...new Set(changes.filter((c) => c.change.action !== "create").map((c) => c.change.ref))];
  const read = new Map<string, SiteItem>();
  for (let start = 0; start < refs.length; start += 50)
    for (const item of await readItems(live, refs.slice(start, start + 50))) read.set(item.ref, item);
  return read;
}

/**
 * The replay merged with a person's live edits, read before anything is recorded (lib/changes/replay.ts,
 * mergeLiveEdits): an edit of other fields is kept and the change goes over the live version; an edit of a field the
 * rehearsal writes is `409 drifted` naming the item and the field. Returns the live states read (what Undo restores).
 */
async function mergedWithLive(live: SiteClient, changes: LiveChange[]) {
  const read = await liveItems(live, changes);
  const merged = mergeLiveEdits(changes, read);
  if (merged.conflicts.length > 0) throw fieldConflict(merged.conflicts);
  const before = new Map([...read].map(([ref, item]) => [ref, item.exists ? item.state : null]));
  return { changes: merged.changes, before };
}

const FIELD_WORDS: Record<string, string> = { menu_order: "order", featured_media: "featured image", value: "value" };

/** `409 drifted` naming each item and the field both the person and the rehearsal changed. */
function fieldConflict(conflicts: FieldConflict[]): AppError {
  const items = conflicts.map((c) => ({
    id: c.id,
    title: c.title,
    field: c.field,
    reason: `Its ${FIELD_WORDS[c.field] ?? c.field} was edited on the live site after the sandbox copy was made; applying would overwrite that edit.`,
  }));
  const names = [...new Set(items.map((i) => `"${i.title}" (${FIELD_WORDS[i.field] ?? i.field})`))].join(", ");
  return new AppError(
    "drifted",
    `Nothing was applied: ${names} changed on the live site since the sandbox copy was made. Ask again to rehearse on the current version.`,
    { details: { items } },
  );
}

export async function applyRehearsal(
  request: RehearsalRequest,
  live: SiteClient,
  sandboxes: RehearsalSandboxAccess,
  now: () => Date = clockNow,
) {
  return withClaimedRehearsals(request, now, (set, claimed) => applyClaimed(request, set, claimed, live, sandboxes));
}

type RehearsalSet = Awaited<ReturnType<typeof getChangeSet>>;

/**
 * Claims the rehearsal and the other chosen sets for one Apply (`applying`), runs `apply`, and puts the sets back as
 * they were when it throws; a set already claimed, applied or discarded is `409 not_applicable`.
 */
export async function withClaimedRehearsals<T>(
  request: RehearsalRequest,
  now: () => Date,
  apply: (set: RehearsalSet, claimed: Map<string, ChangeSetStatus>) => Promise<T>,
): Promise<T> {
  const set = await getChangeSet(request);
  if (set.target !== "sandbox")
    throw notApplicable("This change set was made on the live site: there is nothing to apply.");
  const setIds = [...new Set([set.id, ...(request.changeSetIds ?? [])])];
  for (const id of setIds.slice(1)) await getChangeSet({ ...request, changeSetId: id }); // 404 for another's
  // The claim comes first: whatever happens next, one Apply at a time writes these sets, and never after a Discard.
  const claimed = await claimRehearsalsForApply({ ids: setIds, userId: request.userId, now: now() });
  if (!claimed) {
    const current = await getChangeSet(request);
    throw notApplicable(
      current.status === "applying"
        ? "This change set is being applied already."
        : `This change set is ${current.status.replaceAll("_", " ")}: it cannot be applied again.`,
    );
  }
  try {
    return await apply(set, claimed);
  } catch (error) {
    // A run under way (the site did not answer) keeps the claim: the sweeper finishes it (./replay-run.ts).
    if (!(await findRunningRun(set.id))) await releaseRehearsals({ previous: claimed, now: now() });
    throw error;
  }
}

/** The sandbox the set was rehearsed in, reachable and with its manifest; a 409 when it is gone. */
export async function rehearsalSandbox(
  request: RehearsalRequest,
  set: Awaited<ReturnType<typeof getChangeSet>>,
  sandboxes: RehearsalSandboxAccess,
) {
  const sandboxId = set.sandboxId;
  const access = sandboxId
    ? await sandboxes.clientForOwned({ userId: request.userId, id: sandboxId }).catch(() => undefined)
    : undefined;
  const manifest = sandboxId ? await findSandboxManifest({ sandboxId }) : undefined;
  if (!sandboxId || !access || !manifest) {
    throw notApplicable(
      "The sandbox this change set was rehearsed in is gone (it expired or was deleted). Discard it and ask again.",
    );
  }
  return { sandboxId, access, manifest };
}

/**
 * The chosen items in the order they were written in the sandbox; refused (superseded) when an earlier set of the
 * sandbox, not live and not chosen, changed the same items.
 */
export async function inWrittenOrder(chosen: Chosen, sandboxId: string, userId: string) {
  const history = await listSandboxItems({ sandboxId, userId });
  const order = new Map(history.map((item, index) => [item.id, index]));
  const items = [...chosen.items].sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
  const superseded = findSupersession({ chosen: items, history, chosenSets: new Set(chosen.sets) });
  if (superseded.length > 0) {
    const names = superseded.map((s) => `"${s.title}"`).join(", ");
    throw new AppError(
      "superseded",
      `Nothing was applied: an earlier change set of this sandbox also changed ${names} and is not on the live site; applying this one alone would carry its edits. Apply it first, or both together.`,
      { details: { items: superseded } },
    );
  }
  return items;
}

/**
 * What an Apply of the claimed rehearsal writes: the chosen waiting items in the order the sandbox wrote them, and
 * their replay on the live site (sandbox addresses mapped to the live ones). Nothing chosen is `not_applicable`.
 */
export async function plannedApply(
  request: RehearsalRequest,
  set: Awaited<ReturnType<typeof getChangeSet>>,
  sandboxes: RehearsalSandboxAccess,
) {
  const chosen = await chooseItems(request);
  if (chosen.items.length === 0) throw notApplicable("Nothing in this change set waits to be applied.");
  const { sandboxId, manifest, access } = await rehearsalSandbox(request, set, sandboxes);
  const items = await inWrittenOrder(chosen, sandboxId, request.userId);
  const plan = planReplay({
    chosen: items,
    manifest,
    addresses: addresses(manifest, sandboxes.appUrl, sandboxId, access.endpoint),
  });
  return { chosen, sandboxId, manifest, items, plan };
}

async function applyClaimed(
  request: RehearsalRequest,
  set: Awaited<ReturnType<typeof getChangeSet>>,
  claimed: Map<string, ChangeSetStatus>,
  live: SiteClient,
  sandboxes: RehearsalSandboxAccess,
) {
  const { sandboxId, items, plan } = await plannedApply(request, set, sandboxes);
  const audit = (outcome: string, detail?: string) =>
    auditChange({
      changeSetId: set.id,
      siteId: set.siteId,
      userId: request.userId,
      action: "apply",
      itemIds: items.map((item) => item.id),
      outcome,
      detail,
    });
  if (plan.refused.length > 0) {
    await audit("refused", plan.refused.map((r) => `${r.title}: ${r.reason}`).join(" "));
    throw notApplicable(
      `Nothing was applied: ${plan.refused.map((r) => `"${r.title}"`).join(", ")} cannot be applied from this sandbox.`,
      { items: plan.refused },
    );
  }
  let merged: Awaited<ReturnType<typeof mergedWithLive>>;
  try {
    merged = await mergedWithLive(live, plan.changes);
  } catch (error) {
    const drifted = isAppError(error) && error.code === "drifted";
    await audit(drifted ? "drifted" : "failed", error instanceof Error ? error.message : String(error));
    throw error;
  }
  // From here the Apply is a durable run (./replay-run.ts): the run's hooks record the live set and the audit.
  const { liveSetId } = await replayAsRun(
    { request, set, claimed, sandboxId, items, changes: merged.changes, before: merged.before },
    live,
  );
  return publicChangeSet(await getChangeSet({ ...request, changeSetId: liveSetId ?? set.id }));
}

export async function discardRehearsal(
  request: RehearsalRequest,
  sandboxes: RehearsalSandboxAccess,
  now: () => Date = clockNow,
) {
  const set = await getChangeSet(request);
  if (set.target !== "sandbox")
    throw notApplicable("This change set was made on the live site: undo it instead of discarding it.");
  const discarded = await discardRehearsalSet({ id: set.id, userId: request.userId, now: now() });
  if (!discarded) {
    const current = await getChangeSet(request);
    throw notApplicable(`This change set is ${current.status.replaceAll("_", " ")}: it cannot be discarded.`);
  }
  await auditChange({
    changeSetId: set.id,
    siteId: set.siteId,
    userId: request.userId,
    action: "discard",
    itemIds: set.items.map((item) => item.id),
    outcome: "ok",
  });
  // The rehearsed changes stay in the sandbox's pages; a copy nobody waits on is thrown away, so the next turn
  // starts from the live site again.
  if (set.sandboxId && !(await hasPendingRehearsal({ sandboxId: set.sandboxId }))) {
    await sandboxes
      .deleteSandbox({ userId: request.userId, id: set.sandboxId })
      .catch((error) =>
        log.info("the discarded rehearsal's sandbox was already gone", { sandboxId: set.sandboxId, error }),
      );
  }
  return publicChangeSet(await getChangeSet(request));
}
