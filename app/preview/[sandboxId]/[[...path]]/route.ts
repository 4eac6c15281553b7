import { env } from "@/lib/env";
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
  });
});

export const GET = preview;
export const HEAD = preview;
export const POST = preview;
export const PUT = preview;
export const PATCH = preview;
export const DELETE = preview;
export const OPTIONS = preview;
