"use client";
/**
 * A media item's picture in the review queue, beside its proposed text: the site's thumbnail as our own route answers
 * it (`/sites/:id/media/:attachmentId/thumbnail`, docs/media.md), never loaded from the site itself. A picture the
 * site cannot give (no file, not an image, too large) is left out rather than shown broken.
 */
import { useState } from "react";
import type { PublicChangeItem } from "@/lib/changes/change-sets";
import styles from "./queue.module.css";

/** The attachment a media item changes (`post:<id>`), or undefined for any other item. */
export function attachmentOf(item: Pick<PublicChangeItem, "kind" | "targetId">): number | undefined {
  if (item.kind !== "media") return undefined;
  const match = /^post:(\d+)$/.exec(item.targetId);
  return match ? Number(match[1]) : undefined;
}

export function ItemPicture({ siteId, item }: { siteId: string; item: PublicChangeItem }) {
  const [failed, setFailed] = useState(false);
  const id = attachmentOf(item);
  if (id === undefined || failed) return null;
  return (
    // biome-ignore lint/performance/noImgElement: the site's picture through our own authenticated route, not a static asset
    <img
      className={styles.picture}
      src={`/sites/${siteId}/media/${id}/thumbnail`}
      alt={`“${item.title || "Untitled"}” as it is in your media library`}
      width={96}
      height={96}
      loading="lazy"
      decoding="async"
      onError={() => setFailed(true)}
      data-testid="queue-picture"
    />
  );
}
