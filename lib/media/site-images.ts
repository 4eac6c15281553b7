/**
 * A paired site's own pictures, fetched by us for the owner's pages (the review queue's thumbnails) and for a model
 * that can see images (docs/media.md, "A site's pictures"). The browser never loads a picture from the site itself, so
 * our pages' image sources stay our origin: the site names the file (signed REST), we fetch it through the SSRF-safe
 * fetch only from the site's own origin, without following redirects, size-capped, and answer it only when its own
 * bytes say PNG, JPEG, GIF or WebP.
 */
import { AppError, isAppError } from "@/lib/errors";
import { isSiteRequestError } from "@/lib/sites/client";
import { safeFetch } from "@/lib/sites/safe-fetch";
import { siteClientFor } from "@/lib/sites/sites";
import type { SiteClient } from "@/lib/sites/types";
import type { Site } from "@/lib/db/schema";
import { MEDIA_TYPES, sniffMedia } from "./sniff";

/** What the queue shows per item: WordPress's `thumbnail` size is 150 px; a picture over this is refused. */
export const THUMBNAIL_MAX_BYTES = 512 * 1024;
/** The longer side the queue asks for when the site made no `thumbnail` size. */
export const THUMBNAIL_SIDE = 150;

type Size = { source_url?: string; width?: number; height?: number };
type Media = { source_url?: string; media_type?: string; media_details?: { sizes?: Record<string, Size> } };

/**
 * Where the site keeps a copy of attachment `id` at least `side` px on its longer side (WordPress's `thumbnail`
 * size when `side` is the thumbnail's), the smallest such, else the original; undefined when it is not an image.
 */
export async function attachmentImageUrl(client: SiteClient, id: number, side: number): Promise<string | undefined> {
  const { data: media } = await client.get<Media>(`/wp/v2/media/${id}`, {
    _fields: "source_url,media_type,media_details",
  });
  if (media?.media_type !== "image") return undefined;
  const sizes = media.media_details?.sizes ?? {};
  if (side <= THUMBNAIL_SIDE && sizes.thumbnail?.source_url) return sizes.thumbnail.source_url;
  const big = Object.values(sizes)
    .filter((s) => s.source_url && Math.max(s.width ?? 0, s.height ?? 0) >= side)
    .sort((a, b) => (a.width ?? 0) * (a.height ?? 0) - (b.width ?? 0) * (b.height ?? 0));
  return big[0]?.source_url ?? media.source_url;
}

/** Whether `url` is a file of the site at `siteUrl` (same scheme, host and port), not an address it points us to. */
export function isSiteOwnFile(url: string, siteUrl: string): boolean {
  try {
    const file = new URL(url);
    return file.origin === new URL(siteUrl).origin && !file.username && !file.password;
  } catch {
    return false;
  }
}

export type SiteImage = { bytes: Buffer; mime: string };

/**
 * The picture at `url`, a file of the site at `siteUrl`: `404 not_found` for any other address (or a redirect),
 * `413 payload_too_large` over `maxBytes`, `415 unsupported_media_type` when its bytes are not PNG, JPEG, GIF or
 * WebP (whatever type the site claims), `502 site_unreachable` when the site does not answer it.
 */
export async function fetchSiteImage(
  url: string,
  options: { siteUrl: string; maxBytes: number; signal?: AbortSignal },
): Promise<SiteImage> {
  if (!isSiteOwnFile(url, options.siteUrl))
    throw new AppError("not_found", "The site names a picture outside its own address; it is not shown here.");
  let response: Awaited<ReturnType<typeof safeFetch>>;
  try {
    response = await safeFetch(url, { maxRedirects: 0, maxResponseBytes: options.maxBytes, signal: options.signal });
  } catch (error) {
    if ((error as { reason?: string }).reason === "too_large")
      throw new AppError(
        "payload_too_large",
        `The site's picture is larger than ${Math.floor(options.maxBytes / 1024)} KiB.`,
        { details: { maxBytes: options.maxBytes }, cause: error },
      );
    if (isAppError(error)) throw error;
    throw new AppError("site_unreachable", "The site did not answer for the picture.", { cause: error });
  }
  if (response.status !== 200)
    throw new AppError("site_unreachable", `The site answered HTTP ${response.status} for the picture.`, {
      details: { status: response.status },
    });
  const kind = sniffMedia(response.body);
  if (!kind || !MEDIA_TYPES[kind].image)
    throw new AppError("unsupported_media_type", "The site's file for this picture is not a PNG, JPEG, GIF or WebP.");
  return { bytes: response.body, mime: MEDIA_TYPES[kind].mime };
}

/** A site picture as our origin answers it: its sniffed type, never sniffed again, nothing in it may run. */
export function siteImageBody(image: SiteImage): Response {
  return new Response(new Uint8Array(image.bytes), {
    status: 200,
    headers: {
      "Content-Type": image.mime,
      "Content-Length": String(image.bytes.length),
      "Content-Disposition": "inline",
      "Content-Security-Policy": "default-src 'none'; sandbox",
      "X-Content-Type-Options": "nosniff",
      // The owner's own view of their site: the browser may keep it a while, shared caches never.
      "Cache-Control": "private, max-age=300",
    },
  });
}

type Deps = { siteClient: typeof siteClientFor };
let override: Partial<Deps> | undefined;
/** Tests: a site client of their own; `undefined` restores the default. */
export function setSiteImageDepsForTests(deps: Partial<Deps> | undefined) {
  override = deps;
}

/**
 * `GET /sites/:id/media/:attachmentId/thumbnail`: the attachment's thumbnail from the site (the route checked that
 * the person may read it; docs/teams.md); 404 for an attachment the site does not have or that is not an image.
 */
export async function siteThumbnail(site: Site, attachmentId: number) {
  const client = (override?.siteClient ?? siteClientFor)(site);
  const url = await attachmentImageUrl(client, attachmentId, THUMBNAIL_SIDE).catch((error: unknown) => {
    if (isSiteRequestError(error) && error.siteStatus === 404) return undefined;
    throw error;
  });
  if (!url) throw new AppError("not_found", "The site has no such picture.");
  return fetchSiteImage(url, { siteUrl: site.url, maxBytes: THUMBNAIL_MAX_BYTES });
}
