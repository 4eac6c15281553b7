/**
 * Use case: after a live write, an Apply or an Undo, look at the public site as a visitor would and record what was
 * seen on the change set (docs/verification.md). It runs after the answer to the owner, never blocks the chat or
 * the button, one check at a time per site, with a bounded queue.
 */
import { auditChange } from "@/lib/changes/change-sets";
import { findChangeSet, findSiteForUser, setChangeSetVerification } from "@/lib/db/queries";
import type { ChangeItem, Site } from "@/lib/db/schema";
import { log } from "@/lib/log";
import { processState } from "@/lib/process-state";
import { siteClientFor } from "@/lib/sites/sites";
import type { SiteClient } from "@/lib/sites/types";
import { anonymousFetcher } from "@/lib/verification/fetch-page";
import { DEFAULT_DELAYS, type PageFetcher, type Verification, verifyLiveChange } from "@/lib/verification/verify";

export type VerificationTrigger = "write" | "apply" | "undo";

export type VerificationRequest = {
  userId: string;
  siteId: string;
  changeSetId: string;
  trigger: VerificationTrigger;
  /** The items this write, apply or undo touched (default: all that are in the state the trigger leaves). */
  itemIds?: string[];
};

type Deps = { siteClient(site: Site): SiteClient; fetchPage: PageFetcher; delays: number[] };
const defaults = (): Deps => ({
  siteClient: (site) => siteClientFor(site),
  fetchPage: anonymousFetcher(),
  delays: DEFAULT_DELAYS,
});

/** Checks queued per site at most; past it, a check is recorded as not done rather than piling up. */
export const MAX_QUEUED_PER_SITE = 8;

type Queue = { tail: Promise<void>; depth: number };
const state = () =>
  processState("verification", () => ({
    queues: new Map<string, Queue>(),
    deps: undefined as Partial<Deps> | undefined,
  }));

/** Tests: another site client, page fetcher or retry delays; `undefined` restores the defaults. */
export function setVerificationDepsForTests(deps: Partial<Deps> | undefined) {
  state().deps = deps;
}
const deps = (): Deps => ({ ...defaults(), ...state().deps });

/**
 * Records the check as pending and queues it behind the site's other checks. Returns the queued work, for tests and
 * for callers that may wait; production callers do not await it.
 */
export function scheduleVerification(request: VerificationRequest): Promise<void> {
  const { queues } = state();
  const queue = queues.get(request.siteId) ?? { tail: Promise.resolve(), depth: 0 };
  if (queue.depth >= MAX_QUEUED_PER_SITE) {
    return record(request, {
      status: "unreachable",
      checkedAt: new Date().toISOString(),
      urls: [],
      purged: [],
    }).catch(() => undefined);
  }
  queue.depth++;
  queues.set(request.siteId, queue);
  const pending = setChangeSetVerification({ id: request.changeSetId, verification: { status: "pending", urls: [] } });
  const run = async () => {
    try {
      await pending;
      const verification = await verifyNow(request);
      if (verification) await record(request, verification);
      else await setChangeSetVerification({ id: request.changeSetId, verification: null });
    } catch (error) {
      log.warn("could not verify a change set on the live site", { changeSetId: request.changeSetId, error });
      await record(request, {
        status: "unreachable",
        checkedAt: new Date().toISOString(),
        urls: [],
      }).catch(() => undefined);
    } finally {
      queue.depth--;
      if (queue.depth === 0 && queues.get(request.siteId) === queue) queues.delete(request.siteId);
    }
  };
  queue.tail = queue.tail.then(run, run);
  return queue.tail;
}

async function record(request: VerificationRequest, verification: Verification) {
  await setChangeSetVerification({ id: request.changeSetId, verification });
  const reasons = verification.urls.filter((u) => u.reason).map((u) => `${u.url}: ${u.reason}`);
  await auditChange({
    changeSetId: request.changeSetId,
    siteId: request.siteId,
    userId: request.userId,
    action: "verify",
    itemIds: request.itemIds ?? [],
    outcome: verification.status,
    detail: [`after ${request.trigger}`, ...reasons].join(" "),
  });
}

/** The items as they were and as a visitor should now see them. */
function itemsFor(request: VerificationRequest, items: ChangeItem[]) {
  const wanted = request.itemIds ? new Set(request.itemIds) : undefined;
  const undo = request.trigger === "undo";
  return items
    .filter((item) => (wanted ? wanted.has(item.id) : item.status === (undo ? "undone" : "applied")))
    .map((item) => ({
      ref: item.ref,
      kind: item.kind,
      title: item.title,
      from: undo ? item.afterState : item.beforeState,
      to: undo ? item.beforeState : item.afterState,
      // After an undo the site holds the version before the turn, which the item does not record for every kind.
      version: undo ? null : item.versionAfter,
    }));
}

async function verifyNow(request: VerificationRequest): Promise<Verification | null> {
  const set = await findChangeSet({ id: request.changeSetId, userId: request.userId, siteId: request.siteId });
  const site = await findSiteForUser({ userId: request.userId, siteId: request.siteId });
  if (!set || !site || set.target !== "live") return null;
  const { siteClient, fetchPage, delays } = deps();
  return verifyLiveChange({
    client: siteClient(site),
    siteUrl: site.url,
    items: itemsFor(request, set.items),
    fetchPage,
    delays,
  });
}
