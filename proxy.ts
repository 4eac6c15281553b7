/**
 * Refuses paths Next.js cannot decode (`/sites/%FF`, `/sessions/%C0%AF`, `/preview/%zz`) before routing. Next.js
 * throws a DecodeError for such a dynamic segment inside the route's bundle and its server, loaded from another
 * bundle, does not recognise it (the same once-per-bundle `instanceof` trap as docs/operations.md describes), so the
 * client got a bare 500. An id that is not one of ours is `404 not_found`; the route wrapper checks everything else.
 */
import { NextResponse, type NextRequest } from "next/server";

function decodes(segment: string): boolean {
  // Any `%`: a broken escape (`%zz`, a lone `%`) fails inside Next.js as surely as one that is not UTF-8.
  if (!segment.includes("%")) return true;
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

export function proxy(request: NextRequest) {
  const rawPath = new URL(request.url).pathname;
  if (rawPath.split("/").every(decodes)) return NextResponse.next();
  return NextResponse.json(
    { error: { code: "not_found", message: "There is nothing at this address." } },
    { status: 404, headers: { "Cache-Control": "no-store" } },
  );
}

// Only the paths with dynamic segments; /health, pages without parameters and static files never run this. Under
// /preview only paths with a `%` that may not decode (not followed by an ASCII escape, `%00`–`%7F`): Next.js buffers
// the body of every request its proxy sees, and preview uploads must stream (lib/sandbox/preview.ts).
export const config = {
  matcher: ["/sites/:path+", "/sessions/:path+", "/sandbox/:path+", "/preview/:path(.*%(?![0-7][0-9a-fA-F]).*)"],
};
