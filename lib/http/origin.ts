import { AppError } from "@/lib/errors";

/**
 * Browsers send Origin on every cross-origin and same-origin POST; we accept only our own origin, exactly (not a
 * prefix), and refuse anything the browser itself labels cross-site. Requests with neither header come from
 * non-browser clients, which carry no ambient cookie to abuse.
 */
export function assertSameOrigin(request: Request, appUrl: string) {
  const expected = new URL(appUrl).origin;
  const origin = request.headers.get("origin");
  const fetchSite = request.headers.get("sec-fetch-site");
  if (fetchSite === "cross-site" || (origin !== null && origin !== expected)) {
    throw new AppError("cross_site_request", "This request came from another site and was refused.");
  }
}
