/**
 * What the review page of a change set shows: each changed page (or, for a design change, the home page) on the
 * live site and, for a rehearsal (a sandbox change set), in the sandbox through the preview, side by side; whether
 * the rehearsal's sandbox is still there to preview and apply from; the change set to apply, discard or undo, and its
 * diff with one row per target (several changes to one item shown as one: lib/changes/combined.ts).
 */
import { showChangeSetForOwner } from "@/lib/workflows/change-set-actions";
import type { PublicChangeSet } from "@/lib/changes/change-sets";
import { type CombinedRow, combineByTarget } from "@/lib/changes/combined";
import { now } from "@/lib/clock";
import { findSandboxForUser, findSandboxManifest, listWaitingRehearsals } from "@/lib/db/queries";
import type { SandboxManifest } from "@/lib/db/schema";
import { getSiteOfRecord } from "@/lib/teams/access";
import { sandboxConfig } from "@/lib/sandbox/config";
import { previewUrl } from "@/lib/sandbox/preview";

export type ReviewedPage = {
  itemId: string;
  title: string;
  summary: string;
  liveUrl: string | null;
  /** The same page in the rehearsal's sandbox (null for a live change, or when the sandbox is gone). */
  previewUrl: string | null;
};

export type RehearsalReview = {
  site: { id: string; url: string; name: string | null };
  changeSet: PublicChangeSet;
  /** The set's diff, one row per target: several changes to one item combined (before the first, after the last). */
  rows: CombinedRow[];
  /** A rehearsal's sandbox: `running` (previews and Apply work) or `gone`; null for a change on the live site. */
  sandbox: "running" | "gone" | null;
  pages: ReviewedPage[];
  /** The same sandbox's other rehearsals that wait for Apply: the owner may review and apply them together. */
  alsoWaiting: Array<{ id: string; createdAt: string }>;
};

/** Items that change the whole site's look rather than one page: reviewed on the home page. */
const SITE_WIDE = new Set([
  "global_styles",
  "custom_css",
  "template",
  "template_part",
  "navigation",
  "menu",
  "setting",
]);

/** A rehearsal's sandbox is there while it is ready and not expired (the preview answers then, lib/sandbox/preview). */
async function sandboxState(set: PublicChangeSet, userId: string): Promise<RehearsalReview["sandbox"]> {
  if (set.target !== "sandbox") return null;
  const sandbox = set.sandboxId ? await findSandboxForUser({ id: set.sandboxId, userId }) : undefined;
  return sandbox?.status === "ready" && sandbox.endpoint && sandbox.expiresAt > now() ? "running" : "gone";
}

export async function loadRehearsalReview(input: {
  userId: string;
  siteId: string;
  changeSetId: string;
}): Promise<RehearsalReview> {
  const site = await getSiteOfRecord(input);
  const changeSet = await showChangeSetForOwner(input);
  const sandbox = await sandboxState(changeSet, input.userId);
  const manifest =
    sandbox && changeSet.sandboxId ? await findSandboxManifest({ sandboxId: changeSet.sandboxId }) : undefined;
  const preview =
    sandbox === "running" && changeSet.sandboxId ? previewUrl(sandboxConfig().appUrl, changeSet.sandboxId) : null;
  const pages = reviewedPages(changeSet, site.url.replace(/\/+$/, ""), preview, manifest);
  const alsoWaiting =
    changeSet.target === "sandbox" && changeSet.sandboxId
      ? await listWaitingRehearsals({ sandboxId: changeSet.sandboxId, userId: input.userId, exceptId: changeSet.id })
      : [];
  return {
    site: { id: site.id, url: site.url, name: site.name },
    changeSet,
    rows: combineByTarget(changeSet.items),
    sandbox,
    pages,
    alsoWaiting: alsoWaiting.map((set) => ({ id: set.id, createdAt: set.createdAt.toISOString() })),
  };
}

/** Each changed page once, and the home page once for changes to the whole site's look. */
function reviewedPages(
  changeSet: PublicChangeSet,
  liveBase: string,
  preview: string | null,
  manifest: SandboxManifest | undefined,
): ReviewedPage[] {
  const seen = new Set<string>();
  const pages: ReviewedPage[] = [];
  const rehearsal = changeSet.target === "sandbox";
  for (const item of changeSet.items) {
    const match = /^post:(\d+)$/.exec(item.targetId);
    if (match && item.kind !== "media" && !seen.has(item.targetId)) {
      seen.add(item.targetId);
      const postId = Number(match[1]);
      const param = item.kind === "page" ? "page_id" : "p";
      const copied = manifest?.items.find((entry) => entry.sandboxId === postId && entry.kind !== "attachment");
      const liveId = rehearsal ? copied?.sourceId : postId;
      pages.push({
        itemId: item.id,
        title: item.title,
        summary: item.summary,
        liveUrl: typeof liveId === "number" ? `${liveBase}/?${param}=${liveId}` : null,
        previewUrl: preview && rehearsal ? `${preview}?${param}=${postId}` : null,
      });
    } else if (SITE_WIDE.has(item.kind) && !seen.has("home")) {
      seen.add("home");
      pages.push({
        itemId: item.id,
        title: "Home page",
        summary: item.summary,
        liveUrl: `${liveBase}/`,
        previewUrl: preview && rehearsal ? preview : null,
      });
    }
  }
  return pages;
}
