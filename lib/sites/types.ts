/** The signed client's public shape: what pairing, the agent and sandboxes call. */
export type SiteCredentials = {
  /** The site's home URL, normalized (https, lowercased host, no trailing slash). */
  baseUrl: string;
  /** The REST root the plugin reported: `https://x/wp-json/` or `https://x/?rest_route=/`. */
  restUrl: string;
  token: string;
  secret: string;
};

export type SiteResponse<T = unknown> = { status: number; data: T; headers: Headers };

export interface SiteClient {
  get<T = unknown>(route: string, query?: Record<string, string | number | boolean>): Promise<SiteResponse<T>>;
  post<T = unknown>(route: string, body?: unknown): Promise<SiteResponse<T>>;
  put<T = unknown>(route: string, body?: unknown): Promise<SiteResponse<T>>;
  delete<T = unknown>(route: string, query?: Record<string, string | number | boolean>): Promise<SiteResponse<T>>;
}

/**
 * Why a site request failed:
 * - `unreachable`: DNS, connect, TLS, timeout, refused by the SSRF guard.
 * - `rejected`: the site answered 4xx/5xx; `siteCode` is WordPress's `code` (e.g. `sitewright_bad_signature`).
 * - `bad_response`: the body was not JSON, too large, or not the expected shape.
 */
export type SiteErrorKind = "unreachable" | "rejected" | "bad_response";
