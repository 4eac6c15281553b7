/**
 * What the review page of a rehearsal shows (a sandbox change set): each changed page before (the live site) and
 * after (the sandbox, through the preview), side by side, with the change set to apply or discard.
 */
import { showChangeSetForOwner } from "@/lib/workflows/change-set-actions";
import type { PublicChangeSet } from "@/lib/changes/change-sets";
import { findSandboxManifest, listWaitingRehearsals } from "@/lib/db/queries";
import { getSiteOfRecord } from "@/lib/teams/access";
import { sandboxConfig } from "@/lib/sandbox/config";
import { previewUrl } from "@/lib/sandbox/preview";

export type ReviewedPage = {
  itemId: string;
  title: string;
  summary: string;
  liveUrl: string | null;
  previewUrl: string | null;
};

export type RehearsalReview = {
  site: { id: string; url: string; name: string | null };
  changeSet: PublicChangeSet;
  pages: ReviewedPage[];
  /** The same sandbox's other rehearsals that wait for Apply: the owner may review and apply them together. */
  alsoWaiting: Array<{ id: string; createdAt: string }>;
};

export async function loadRehearsalReview(input: {
  userId: string;
  siteId: string;
  changeSetId: string;
}): Promise<RehearsalReview> {
  const site = await getSiteOfRecord(input);
  const changeSet = await showChangeSetForOwner(input);
  const manifest = changeSet.sandboxId ? await findSandboxManifest({ sandboxId: changeSet.sandboxId }) : undefined;
  const preview = changeSet.sandboxId ? previewUrl(sandboxConfig().appUrl, changeSet.sandboxId) : null;
  const liveBase = site.url.replace(/\/+$/, "");
  const seen = new Set<string>();
  const pages: ReviewedPage[] = [];
  for (const item of changeSet.items) {
    const match = /^post:(\d+)$/.exec(item.targetId);
    if (!match || seen.has(item.targetId)) continue;
    seen.add(item.targetId);
    const sandboxPostId = Number(match[1]);
    const param = item.kind === "page" ? "page_id" : "p";
    const copied = manifest?.items.find((entry) => entry.sandboxId === sandboxPostId && entry.kind !== "attachment");
    const liveId = changeSet.target === "sandbox" ? copied?.sourceId : sandboxPostId;
    pages.push({
      itemId: item.id,
      title: item.title,
      summary: item.summary,
      liveUrl: typeof liveId === "number" ? `${liveBase}/?${param}=${liveId}` : null,
      previewUrl: preview && changeSet.target === "sandbox" ? `${preview}?${param}=${sandboxPostId}` : null,
    });
  }
  const alsoWaiting =
    changeSet.target === "sandbox" && changeSet.sandboxId
      ? await listWaitingRehearsals({ sandboxId: changeSet.sandboxId, userId: input.userId, exceptId: changeSet.id })
      : [];
  return {
    site: { id: site.id, url: site.url, name: site.name },
    changeSet,
    pages,
    alsoWaiting: alsoWaiting.map((set) => ({ id: set.id, createdAt: set.createdAt.toISOString() })),
  };
}
