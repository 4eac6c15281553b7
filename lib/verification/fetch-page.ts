/**
 * A public page as an anonymous visitor gets it: the SSRF-safe fetch (SECURITY.md, "SSRF"), no cookies or
 * credentials, redirects followed and re-checked but never off the site's own origin (SECURITY.md, "Requests the
 * service makes for a site"), bounded in time and size.
 */
import { type SafeFetchOptions, safeFetch } from "@/lib/sites/safe-fetch";
import type { FetchedPage, PageFetcher } from "./verify";

export const PAGE_LIMITS = { timeoutMs: 10_000, maxResponseBytes: 5 * 1024 * 1024 } as const;

export function anonymousFetcher(options: Pick<SafeFetchOptions, "ca" | "allowlist" | "resolver"> = {}): PageFetcher {
  return async (url: string, siteOrigin: string): Promise<FetchedPage> => {
    const response = await safeFetch(url, {
      ...options,
      redirectsWithin: siteOrigin,
      method: "GET",
      headers: {
        accept: "text/html,application/xhtml+xml",
        "user-agent": "Mozilla/5.0 (compatible; Sitewright-Verify/1)",
      },
      maxRedirects: 3,
      timeoutMs: PAGE_LIMITS.timeoutMs,
      maxResponseBytes: PAGE_LIMITS.maxResponseBytes,
    });
    return { status: response.status, body: response.text(), headers: response.headers };
  };
}
