/**
 * The preview's public static files: WordPress's own (core, themes, plugins), served without the owner's session
 * because a page in the preview runs in an opaque origin and its browser may send no cookie with them. A path is
 * public only when that exact file exists in the sandbox's image: the list is read once per image (one `find`
 * inside a running sandbox of it, about 0.2 s for ~2,400 files) and kept for the process. The image's root is
 * read-only and uploads live outside these folders, so every sandbox of one image has exactly these files. A
 * listed file is served by PHP's server as it is (router.php hands existing files back to it): its request never
 * reaches `index.php`, and it is sent with no query string but a checked `ver`.
 */
import { log } from "@/lib/log";
import { processState } from "@/lib/process-state";
import type { ExecResult } from "./driver";

/** The folders whose static files are public, relative to WordPress's root in the image. */
const PUBLIC_FOLDERS = [
  "wp-includes",
  "wp-content/themes",
  "wp-content/plugins",
  "wp-admin/css",
  "wp-admin/js",
  "wp-admin/images",
];
const WORDPRESS_ROOT = "/srv/wordpress";
/** Static file types only: never PHP, never data files (json, txt, crt) a plugin might ship. */
const STATIC_EXTENSION = /\.(?:css|js|mjs|map|png|jpe?g|gif|svg|webp|avif|ico|woff2?|ttf|otf|eot)$/i;
/** One path segment of a file WordPress ships: no leading dot (hidden files), nothing that needs escaping but `,`. */
const SEGMENT = /^[A-Za-z0-9_@-][A-Za-z0-9._,@+~-]*$/;
const VERSION = /^[A-Za-z0-9._-]{1,40}$/;
/** A failed listing is retried after this long, not on every request. */
const RETRY_AFTER_MS = 30_000;

/** Runs a command inside a sandbox's container (the containers unit's exec). */
export type SandboxExec = (containerId: string, cmd: string[]) => Promise<ExecResult>;

type Listing = { files: Promise<ReadonlySet<string>>; failedAt?: number };
const listings = processState("sandbox-preview-static-files", () => new Map<string, Listing>());

/**
 * The file a request names when it could be a public static file: its decoded path relative to WordPress's root
 * (`wp-includes/css/dashicons.min.css`), or undefined for anything else (other methods, other folders, other
 * types, dot segments, odd characters, broken escapes). Whether the file exists is `isListedStaticFile`'s answer.
 */
export function staticFileCandidate(method: string, rawPath: string): string | undefined {
  if (method !== "GET" && method !== "HEAD") return undefined;
  const segments = rawPath.split("/").slice(1);
  const decoded: string[] = [];
  for (const segment of segments) {
    let value: string;
    try {
      value = decodeURIComponent(segment);
    } catch {
      return undefined;
    }
    if (!SEGMENT.test(value)) return undefined;
    decoded.push(value);
  }
  const file = decoded.join("/");
  if (!STATIC_EXTENSION.test(file)) return undefined;
  return PUBLIC_FOLDERS.some((folder) => file.startsWith(`${folder}/`)) ? file : undefined;
}

/** The request path and query to send for a listed file: its segments escaped again, and only a plain `ver`. */
export function staticFileRequest(file: string, search: string): { path: string; search: string } {
  const version = new URLSearchParams(search).getAll("ver");
  const ver = version.length === 1 && VERSION.test(version[0]!) ? `?ver=${version[0]}` : "";
  return { path: `/${file.split("/").map(encodeURIComponent).join("/")}`, search: ver };
}

/** True when `file` is one of the static files of the sandbox's image (false when the image cannot be listed). */
export async function isListedStaticFile(input: {
  file: string;
  sandbox: { imageTag: string; containerId: string | null };
  exec: SandboxExec;
}): Promise<boolean> {
  const { sandbox } = input;
  if (!sandbox.containerId) return false;
  let listing = listings.get(sandbox.imageTag);
  if (listing?.failedAt !== undefined && Date.now() - listing.failedAt > RETRY_AFTER_MS) listing = undefined;
  if (!listing) {
    const made: Listing = { files: listStaticFiles(input.exec, sandbox.containerId) };
    made.files.catch((error) => {
      made.failedAt = Date.now();
      log.warn("could not list the sandbox image's static files: serving them to the owner only", {
        imageTag: sandbox.imageTag,
        error,
      });
    });
    listings.set(sandbox.imageTag, made);
    listing = made;
  }
  try {
    return (await listing.files).has(input.file);
  } catch {
    return false;
  }
}

async function listStaticFiles(exec: SandboxExec, containerId: string): Promise<ReadonlySet<string>> {
  // -type f: regular files only, so no symlink can lead out of these folders.
  const result = await exec(containerId, [
    "sh",
    "-c",
    `cd ${WORDPRESS_ROOT} && find "$@" -type f`,
    "sh",
    ...PUBLIC_FOLDERS,
  ]);
  if (result.exitCode !== 0) throw new Error(`find failed (${result.exitCode}): ${result.stderr.trim()}`);
  const files = new Set<string>();
  for (const line of result.stdout.split("\n")) {
    const file = line.trim();
    if (file && STATIC_EXTENSION.test(file) && file.split("/").every((segment) => SEGMENT.test(segment)))
      files.add(file);
  }
  if (files.size === 0) throw new Error("the image lists no static files");
  return files;
}
