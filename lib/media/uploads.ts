/**
 * Uploads (docs/media.md): a file the owner attaches in the chat is checked by its content, stripped of metadata,
 * scaled when it is larger than a site needs, and kept for its owner and that site until it is used or expires.
 * An image at an https address the owner names goes the same way, fetched through the SSRF-safe fetch.
 */
import { randomUUID } from "node:crypto";
import { now } from "@/lib/clock";
import {
  countUnusedUploads,
  findUpload,
  findUsedSiteUpload,
  insertUpload,
  listUploadMeta,
  markUploadUsed,
  type UploadMeta,
} from "@/lib/db/queries";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { safeFetch } from "@/lib/sites/safe-fetch";
import { readUploadedFile, tooLarge } from "./multipart";
import { mediaFileName, prepareMedia } from "./prepare";

/** An upload nobody used is deleted after this long. */
export const UNUSED_UPLOAD_TTL_MS = 24 * 60 * 60 * 1000;
/** An upload put on a site stays this long, for the preview on its change's card. */
export const USED_UPLOAD_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * At most this many unused uploads per user at a time (each up to UPLOAD_MAX_BYTES, kept a day): enough for any
 * message, and a bound on what one account can make the service store.
 */
export const MAX_UNUSED_UPLOADS = 50;

/** The contract's `upload`: what the chat shows on the attachment's chip, and what the model is told. */
export type PublicUpload = { id: string; name: string; type: string; size: number; width?: number; height?: number };

export function publicUpload(upload: UploadMeta): PublicUpload {
  return {
    id: upload.id,
    name: upload.name,
    type: upload.mime,
    size: upload.size,
    ...(upload.width ? { width: upload.width } : {}),
    ...(upload.height ? { height: upload.height } : {}),
  };
}

async function store(input: { userId: string; siteId: string; name: string; bytes: Uint8Array; sourceUrl?: string }) {
  const prepared = await prepareMedia(input.bytes);
  const at = now();
  return insertUpload({
    id: randomUUID(),
    userId: input.userId,
    siteId: input.siteId,
    name: mediaFileName(input.name, prepared.extension),
    mime: prepared.mime,
    size: prepared.bytes.length,
    width: prepared.width ?? null,
    height: prepared.height ?? null,
    bytes: prepared.bytes,
    sourceUrl: input.sourceUrl ?? null,
    createdAt: at,
    usedAt: null,
    expiresAt: new Date(at.getTime() + UNUSED_UPLOAD_TTL_MS),
  });
}

/**
 * `POST /sites/:id/uploads`: the route checked, before the body is read, that the person may propose on the site
 * (docs/teams.md); the upload is theirs, for that site.
 */
export async function uploadFromRequest(input: { userId: string; siteId: string; request: Request }) {
  if ((await countUnusedUploads({ userId: input.userId, now: now() })) >= MAX_UNUSED_UPLOADS) {
    throw new AppError(
      "rate_limited",
      `You have ${MAX_UNUSED_UPLOADS} attachments waiting to be used; send them or wait a day for them to expire.`,
      { headers: { "Retry-After": "3600" } },
    );
  }
  const file = await readUploadedFile(input.request, env().UPLOAD_MAX_BYTES);
  return publicUpload(await store({ userId: input.userId, siteId: input.siteId, ...file }));
}

/**
 * `GET /sites/:id/uploads/:uploadId` (the route checked the read right): the person's own upload, or one a change of
 * the site used, so whoever reviews an editor's change sees its picture.
 */
export async function uploadForReader(input: { userId: string; siteId: string; uploadId: string }) {
  const found =
    (await findUpload({ id: input.uploadId, userId: input.userId, siteId: input.siteId, now: now() })) ??
    (await findUsedSiteUpload({ id: input.uploadId, siteId: input.siteId, now: now() }));
  if (!found) throw new AppError("not_found", "There is no such upload in your account (they expire after a day).");
  return found;
}

/** The chat's attachments: the user's unexpired uploads for the site, in the order given; 404 for any other id. */
export async function attachedUploads(input: { ids: string[]; userId: string; siteId: string }) {
  const found = await listUploadMeta({ ...input, now: now() });
  return input.ids.map((id) => {
    const upload = found.find((u) => u.id === id);
    if (!upload) throw new AppError("not_found", "An attachment of this message is not in your account (or expired).");
    return publicUpload(upload);
  });
}

/** Fetches an image from an https address (SSRF-safe, size-capped) and keeps it as the user's upload for the site. */
export async function uploadFromUrl(input: { userId: string; siteId: string; url: string }) {
  let url: URL;
  try {
    url = new URL(input.url);
  } catch (cause) {
    throw new AppError("invalid_input", "That is not a valid web address.", { cause });
  }
  if (url.protocol !== "https:") throw new AppError("insecure_url", "Images are fetched from https addresses only.");
  const maxBytes = env().UPLOAD_MAX_BYTES;
  const response = await safeFetch(url, { maxRedirects: 3, maxResponseBytes: maxBytes }).catch((error: unknown) => {
    if ((error as { reason?: string }).reason === "too_large") throw tooLarge(maxBytes);
    throw error;
  });
  if (response.status !== 200) {
    throw new AppError("site_unreachable", `The address answered HTTP ${response.status}, not a file.`);
  }
  const last = url.pathname.split("/").pop() ?? "";
  let name = last;
  try {
    name = decodeURIComponent(last);
  } catch {
    // keep the name as written
  }
  return store({ ...input, name: name || url.hostname, bytes: response.body, sourceUrl: url.href });
}

export async function noteUploadUsed(id: string): Promise<void> {
  const at = now();
  await markUploadUsed({ id, now: at, keepUntil: new Date(at.getTime() + USED_UPLOAD_TTL_MS) });
}

export async function findOwnedUpload(input: { id: string; userId: string; siteId: string }) {
  return findUpload({ ...input, now: now() });
}
