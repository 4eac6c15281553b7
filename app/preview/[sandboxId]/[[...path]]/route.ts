import { env } from "@/lib/env";
import { isAppError } from "@/lib/errors";
import { route } from "@/lib/http/route";
import { getSandboxManager } from "@/lib/sandbox";
import { openPreview, PREVIEW_PREFIX } from "@/lib/sandbox/preview";

/**
 * A sandbox opened in the browser through the service (lib/sandbox/preview.ts): its owner only (their session or
 * the preview grant bound to it), 404 for anyone else, except files that exist among the image's static files.
 * No cross-site check: nothing of ours changes here, and WordPress's own forms post from the preview's opaque
 * origin; the session cookie is `SameSite=Lax`, and the preview grant reaches only the owner's sandbox. Paths
 * whose escapes do not decode never get here (proxy.ts answers them 404).
 */
const preview = route({ auth: "optional", csrf: false }, async ({ request, params, session }) => {
  const url = new URL(request.url);
  const prefix = `${PREVIEW_PREFIX}/${params.sandboxId}`;
  if (url.pathname === prefix) {
    return new Response(null, { status: 308, headers: { Location: `${prefix}/${url.search}` } });
  }
  return openPreview({
    request,
    sandboxId: params.sandboxId!,
    path: url.pathname.startsWith(`${prefix}/`) ? url.pathname.slice(prefix.length) : "/",
    search: url.search,
    session,
    sessionSecret: env().SESSION_SECRET,
    sandboxes: getSandboxManager(),
  }).catch((error) => {
    if (isAppError(error) && error.status === 404 && wantsPage(request)) return gonePage();
    throw error;
  });
});

/** A browser opening a page (a tab, the review's frame) rather than a program asking for JSON. */
const wantsPage = (request: Request) =>
  ["document", "iframe", "frame"].includes(request.headers.get("sec-fetch-dest") ?? "") ||
  (request.headers.get("accept") ?? "").includes("text/html");

/** Said in words where the preview was: the same 404 and code, never raw JSON in the owner's frame. */
const gonePage = () =>
  new Response(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sandbox gone · Sitewright</title></head><body style="font:16px/1.5 system-ui,sans-serif;margin:2rem"><h1 style="font-size:1.25rem">This sandbox is gone</h1><p>It expired or was deleted, so there is nothing to preview here. Ask the assistant in Sitewright to try the change again.</p></body></html>`,
    { status: 404, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } },
  );

export const GET = preview;
export const HEAD = preview;
export const POST = preview;
export const PUT = preview;
export const PATCH = preview;
export const DELETE = preview;
export const OPTIONS = preview;
