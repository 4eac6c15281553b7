import { env } from "@/lib/env";
import { route } from "@/lib/http/route";
import { getSandboxManager } from "@/lib/sandbox";
import { PREVIEW_PREFIX } from "@/lib/sandbox/preview";

/**
 * A sandbox opened in the browser through the service (lib/sandbox/preview.ts): its owner only, 404 for anyone
 * else. No cross-site check: nothing of ours changes here, and WordPress's own forms post from the preview's
 * opaque origin; the session cookie is `SameSite=Lax`, and the preview cookie reaches only the owner's sandbox.
 */
const preview = route({ auth: "optional", csrf: false }, async ({ request, params, session }) => {
  const url = new URL(request.url);
  const prefix = `${PREVIEW_PREFIX}/${params.sandboxId}`;
  if (url.pathname === prefix) {
    return new Response(null, { status: 308, headers: { Location: `${prefix}/${url.search}` } });
  }
  const path = url.pathname.startsWith(`${prefix}/`) ? url.pathname.slice(prefix.length) : "/";
  return getSandboxManager().preview({
    request,
    userId: session?.userId,
    sandboxId: params.sandboxId!,
    path,
    search: url.search,
    sessionSecret: env().SESSION_SECRET,
  });
});

export const GET = preview;
export const HEAD = preview;
export const POST = preview;
export const PUT = preview;
export const PATCH = preview;
export const DELETE = preview;
export const OPTIONS = preview;
