"use client";
/**
 * Files the owner attaches to a message (docs/media.md): picked or dropped, each sent at once to
 * `POST /sites/:id/uploads`, shown as a chip with its thumbnail (served back by the app, so it is the cleaned
 * file), and sent with the message as upload ids.
 */
import { useState } from "react";
import type { Attachment } from "@/lib/agent/chat-message";
import styles from "./chat.module.css";

export const ATTACH_ACCEPT = "image/png,image/jpeg,image/gif,image/webp,application/pdf";

type Pending = { key: string; name: string; state: "uploading" | "failed"; error?: string };
export type Chip = Pending | (Attachment & { key: string; state: "ready" });

let keys = 0;

async function uploadFile(siteId: string, file: File): Promise<Attachment> {
  const body = new FormData();
  body.set("file", file);
  let response: Response;
  try {
    response = await fetch(`/sites/${siteId}/uploads`, { method: "POST", body });
  } catch {
    throw new Error("Sitewright could not be reached.");
  }
  const json = (await response.json().catch(() => ({}))) as {
    upload?: Attachment;
    error?: { message?: string };
  };
  if (!response.ok || !json.upload)
    throw new Error(json.error?.message ?? `The upload failed (HTTP ${response.status}).`);
  return json.upload;
}

export const uploadUrl = (siteId: string, id: string) => `/sites/${siteId}/uploads/${id}`;

export function useAttachments(siteId: string) {
  const [chips, setChips] = useState<Chip[]>([]);
  const add = (files: Iterable<File>) => {
    for (const file of files) {
      const key = `a${++keys}`;
      setChips((all) => [...all, { key, name: file.name, state: "uploading" }]);
      uploadFile(siteId, file).then(
        (upload) => setChips((all) => all.map((c) => (c.key === key ? { ...upload, key, state: "ready" } : c))),
        (error: Error) =>
          setChips((all) =>
            all.map((c) => (c.key === key ? { key, name: file.name, state: "failed", error: error.message } : c)),
          ),
      );
    }
  };
  const remove = (key: string) => setChips((all) => all.filter((c) => c.key !== key));
  const ready = chips.flatMap((c) =>
    c.state === "ready"
      ? [
          {
            id: c.id,
            name: c.name,
            type: c.type,
            size: c.size,
            ...(c.width ? { width: c.width, height: c.height } : {}),
          },
        ]
      : [],
  );
  return {
    chips,
    ready,
    uploading: chips.some((c) => c.state === "uploading"),
    add,
    remove,
    clear: () => setChips([]),
  };
}

/** One attachment: its thumbnail (images) or its name, shown on the composer and in the sent message. */
export function AttachmentChip({
  siteId,
  attachment,
  onRemove,
}: {
  siteId: string;
  attachment: Chip;
  onRemove?: () => void;
}) {
  return (
    <li className={styles.chip} data-testid="attachment" data-state={attachment.state}>
      {attachment.state === "ready" && attachment.type.startsWith("image/") ? (
        // biome-ignore lint/performance/noImgElement: the owner's own upload, served by the app, not a static asset
        <img className={styles.chipThumb} src={uploadUrl(siteId, attachment.id)} alt="" width={40} height={40} />
      ) : null}
      <span>
        {attachment.name}
        {attachment.state === "uploading" ? <span className="muted"> · uploading…</span> : null}
        {attachment.state === "failed" ? <span className="error"> · {attachment.error}</span> : null}
      </span>
      {onRemove ? (
        <button type="button" className="secondary" aria-label={`Remove ${attachment.name}`} onClick={onRemove}>
          ×
        </button>
      ) : null}
    </li>
  );
}
