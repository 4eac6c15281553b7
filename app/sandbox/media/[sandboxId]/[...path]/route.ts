import { route } from "@/lib/http/route";
import { getSandboxManager } from "@/lib/sandbox";

/**
 * A sandbox's media, proxied from its source site's uploads. No session: the sandbox's pages load these as
 * plain <img>/<video> sources from another origin; the random sandbox id scopes what can be fetched, and only
 * while the sandbox lives (lib/sandbox/media-proxy.ts). Browsers keep a copy briefly; shared caches none.
 */
export const GET = route({ auth: "none" }, async ({ params }) => {
  const media = await getSandboxManager().media({ sandboxId: params.sandboxId!, segments: params.path!.split("/") });
  return new Response(new Uint8Array(media.body), {
    status: 200,
    headers: {
      "Content-Type": media.contentType,
      "Content-Length": String(media.body.length),
      "Cache-Control": "private, max-age=300",
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "default-src 'none'; sandbox",
      "Cross-Origin-Resource-Policy": "cross-origin",
      "X-Sitewright-Cache": media.cached ? "hit" : "miss",
    },
  });
});
