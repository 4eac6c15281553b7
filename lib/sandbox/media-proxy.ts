/**
 * The sandbox media proxy. Media is never copied into a sandbox: its URLs point at
 * `${APP_URL}/sandbox/media/<sandboxId>/<path below uploads>`, and this module fetches the file from the source
 * site's uploads through the SSRF-safe fetch, only when it is an image, video or audio file, and keeps it in a
 * size-capped disk cache. Paths that would leave the origin's uploads folder are refused before any request.
 * Each sandbox's files sit in a folder of its own, so its media goes with it: once the sandbox is expired, removed
 * or gone, its media answers 404 and its folder is deleted (at once on a request, or by the next GC's prune).
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, unlink, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { now as clockNow } from "@/lib/clock";
import { findSandboxById, findSandboxManifest, listSandboxes } from "@/lib/db/queries";
import type { Sandbox } from "@/lib/db/schema";
import { AppError } from "@/lib/errors";
import { safeFetch, type SafeFetchOptions } from "@/lib/sites/safe-fetch";

/** Images (SVG excluded: it can carry script), video and audio. */
const MEDIA_TYPE = /^(image\/(?!svg)[a-z0-9.+-]+|video\/[a-z0-9.+-]+|audio\/[a-z0-9.+-]+)$/;
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9 ._~()+,@=-]{0,200}$/;
const MAX_MEDIA_BYTES = 25 * 1024 * 1024;
const MAX_CACHE_AGE_MS = 7 * 24 * 3600_000;
const SANDBOX_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export type MediaFile = { body: Buffer; contentType: string; cached: boolean };

const notFound = () => new AppError("not_found", "There is no such media file.");

/**
 * The origin URL for a path below the uploads base, or a 404 when the path is not a plain relative file path
 * (no empty, dot or dot-dot segments, no slashes or backslashes hidden in a segment, no odd characters).
 */
export function originMediaUrl(uploadsBaseUrl: string, segments: string[]): string {
  if (segments.length === 0 || segments.length > 8) throw notFound();
  for (const segment of segments) {
    if (!SEGMENT.test(segment) || segment.includes("..")) throw notFound();
  }
  const base = new URL(uploadsBaseUrl);
  const url = new URL(segments.map(encodeURIComponent).join("/"), base);
  if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname) || url.search || url.hash) throw notFound();
  return url.toString();
}

export async function fetchSandboxMedia(input: {
  sandboxId: string;
  segments: string[];
  /** The media cache directory (config.mediaCacheDir). */
  cacheDir: string;
  maxCacheBytes: number;
  /** Extra safe-fetch options (tests: a local CA). */
  fetchOptions?: Pick<SafeFetchOptions, "ca" | "allowlist" | "resolver">;
}): Promise<MediaFile> {
  if (!SANDBOX_ID.test(input.sandboxId)) throw notFound();
  const [sandbox, manifest] = await Promise.all([
    findSandboxById({ id: input.sandboxId }),
    findSandboxManifest({ sandboxId: input.sandboxId }),
  ]);
  const dir = path.join(input.cacheDir, input.sandboxId);
  if (!sandbox || !isLive(sandbox, clockNow())) {
    await rm(dir, { recursive: true, force: true });
    throw notFound();
  }
  if (!manifest?.sourceUploadsUrl) throw notFound();
  const url = originMediaUrl(manifest.sourceUploadsUrl, input.segments);

  const key = createHash("sha256").update(url).digest("hex");
  const bodyFile = path.join(dir, `${key}.bin`);
  const metaFile = path.join(dir, `${key}.json`);
  try {
    const meta = JSON.parse(await readFile(metaFile, "utf8")) as { contentType: string };
    const body = await readFile(bodyFile);
    const touched = new Date();
    await utimes(bodyFile, touched, touched).catch(() => {});
    return { body, contentType: meta.contentType, cached: true };
  } catch {
    // not cached (or half-written): fetch it
  }

  const response = await safeFetch(url, {
    ...input.fetchOptions,
    method: "GET",
    headers: { accept: "image/*,video/*,audio/*", "user-agent": "Sitewright-media/1" },
    // A redirect could lead outside the uploads folder: refuse rather than follow.
    maxRedirects: 0,
    maxResponseBytes: MAX_MEDIA_BYTES,
  });
  if (response.status === 404 || response.status === 410) throw notFound();
  if (response.status !== 200) {
    throw new AppError("site_unreachable", "The site did not send that media file.", {
      details: { status: response.status },
    });
  }
  const contentType = (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (!MEDIA_TYPE.test(contentType)) {
    throw new AppError(
      "unsupported_media_type",
      "Only images, video and audio are served through the sandbox media proxy.",
      {
        details: { contentType: contentType || null },
      },
    );
  }

  await mkdir(dir, { recursive: true });
  const partial = `.${randomBytes(6).toString("hex")}.partial`;
  await writeFile(bodyFile + partial, response.body);
  await rename(bodyFile + partial, bodyFile);
  await writeFile(metaFile + partial, JSON.stringify({ contentType, url }));
  await rename(metaFile + partial, metaFile);
  await pruneMediaCache({ cacheDir: input.cacheDir, maxBytes: input.maxCacheBytes, now: clockNow() });
  return { body: response.body, contentType, cached: false };
}

const isLive = (sandbox: Sandbox, now: Date) => sandbox.status !== "removing" && sandbox.expiresAt > now;

/**
 * Prunes the media cache (`cacheDir`): the folders of sandboxes that are expired, being removed or gone (and any
 * file outside a sandbox's folder), then files older than a week, then the least recently used until the cache
 * is under `maxBytes`. Returns how many files went.
 */
export async function pruneMediaCache({
  cacheDir,
  maxBytes,
  now,
}: {
  cacheDir: string;
  maxBytes: number;
  now: Date;
}): Promise<number> {
  let names: string[];
  try {
    names = await readdir(cacheDir);
  } catch {
    return 0;
  }
  let removed = 0;
  const live = new Set((await listSandboxes()).filter((sandbox) => isLive(sandbox, now)).map((sandbox) => sandbox.id));
  const files: Array<{ file: string; size: number; mtime: number }> = [];
  for (const name of names) {
    const entry = path.join(cacheDir, name);
    if (!SANDBOX_ID.test(name) || !live.has(name)) {
      removed += await countFiles(entry, ".bin");
      await rm(entry, { recursive: true, force: true });
      continue;
    }
    for (const file of await readdir(entry).catch(() => [] as string[])) {
      if (!file.endsWith(".bin")) continue;
      try {
        const info = await stat(path.join(entry, file));
        files.push({ file: path.join(entry, file.slice(0, -4)), size: info.size, mtime: info.mtimeMs });
      } catch {
        // removed meanwhile
      }
    }
  }
  files.sort((a, b) => a.mtime - b.mtime);
  let total = files.reduce((sum, file) => sum + file.size, 0);
  for (const file of files) {
    const stale = now.getTime() - file.mtime > MAX_CACHE_AGE_MS;
    if (!stale && total <= maxBytes) break;
    await unlink(`${file.file}.bin`).catch(() => {});
    await unlink(`${file.file}.json`).catch(() => {});
    total -= file.size;
    removed += 1;
  }
  return removed;
}

async function countFiles(entry: string, suffix: string): Promise<number> {
  try {
    const info = await stat(entry);
    if (!info.isDirectory()) return entry.endsWith(suffix) ? 1 : 0;
    return (await readdir(entry)).filter((name) => name.endsWith(suffix)).length;
  } catch {
    return 0;
  }
}
