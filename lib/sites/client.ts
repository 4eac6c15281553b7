/**
 * The signed site client: every request to a paired site's REST API, signed as docs/signing.md says, and sent
 * through the SSRF-safe fetch. Works for `/wp-json/` sites and `?rest_route=` sites.
 */
import { nowMs } from "../clock";
import { AppError, type ErrorCode, isAppError } from "../errors";
import { SIGNED_REQUEST_ERRORS, type SignedRequestError } from "../vocabulary";
import { PinnedAgents, SafeFetchError, type SafeFetchOptions, safeFetch } from "./safe-fetch";
import { percentEncode, queryPairs, ROUTE_PARAM, sign, SigningInputError } from "./signing";
import type { SiteClient, SiteCredentials, SiteErrorKind, SiteResponse } from "./types";

export type SiteMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
export type SiteQuery = Record<string, string | number | boolean>;

export type SiteClientOptions = Pick<
  SafeFetchOptions,
  "resolver" | "allowlist" | "allowHttp" | "ca" | "connectTimeoutMs" | "timeoutMs" | "maxResponseBytes"
> & {
  /** Clock for the timestamp header, in unix ms; default the service clock. */
  now?: () => number;
  userAgent?: string;
};

export type SiteRequest = {
  method: SiteMethod;
  route: string;
  query?: SiteQuery;
  body?: unknown;
  signal?: AbortSignal;
};

export interface SignedSiteClient extends SiteClient {
  patch<T = unknown>(route: string, body?: unknown): Promise<SiteResponse<T>>;
  request<T = unknown>(request: SiteRequest): Promise<SiteResponse<T>>;
  readonly restUrl: string;
  /** Closes kept-alive connections now instead of when they idle out (a few seconds). */
  close(): Promise<void>;
}

const codeFor: Record<SiteErrorKind, ErrorCode> = {
  unreachable: "site_unreachable",
  rejected: "site_rejected",
  bad_response: "site_unreachable",
};

/**
 * Why a site request failed. `code` is the contract's `site_unreachable` or `site_rejected` (502), so a route can
 * rethrow it as is; `kind`, `siteStatus` and `siteCode` (WordPress's `code`) say more.
 */
export class SiteRequestError extends AppError {
  readonly kind: SiteErrorKind;
  readonly siteStatus?: number;
  readonly siteCode?: string;
  /** WordPress's `data` of the error (e.g. the stale items of `sitewright_stale`): site data, untrusted. */
  readonly siteData?: unknown;

  constructor(
    kind: SiteErrorKind,
    message: string,
    extra: { siteStatus?: number; siteCode?: string; siteData?: unknown; reason?: string; cause?: unknown } = {},
  ) {
    const details: Record<string, unknown> = { kind };
    if (extra.siteStatus !== undefined) details.status = extra.siteStatus;
    if (extra.siteCode !== undefined) details.siteCode = extra.siteCode;
    if (extra.reason !== undefined) details.reason = extra.reason;
    super(codeFor[kind], message, { details, cause: extra.cause });
    this.name = "SiteRequestError";
    this.kind = kind;
    this.siteStatus = extra.siteStatus;
    this.siteCode = extra.siteCode;
    this.siteData = extra.siteData;
  }
}

/** By brand and shape, not `instanceof` (Next.js loads this module once per bundle). */
export const isSiteRequestError = (error: unknown): error is SiteRequestError =>
  isAppError(error) && (error as { name?: string }).name === "SiteRequestError";

/** What a person can do about each refusal the plugin can give (every code of the shared vocabulary). */
const rejectionMessages: Record<SignedRequestError | "sitewright_stale", string> = {
  sitewright_bad_token: "The site no longer accepts Sitewright's key. Reconnect the site from its Sitewright settings.",
  sitewright_bad_signature: "The site refused Sitewright's signature. Reconnect the site to renew its keys.",
  sitewright_stale_timestamp: "The site's clock is more than five minutes off. Correct the server time and try again.",
  sitewright_replayed: "The site saw this request twice and refused the copy. Try again.",
  sitewright_scope: "The site's connection does not allow this. Reconnect it with the permission needed.",
  sitewright_stale: "Someone changed this on the site after Sitewright read it, so nothing was written.",
  sitewright_method_override: "The site refused a method override. This is a bug in Sitewright.",
  sitewright_replay_cache_unavailable:
    "The site could not record Sitewright's request in its database, so it refused it. Check the site's database.",
};

/** Routes as WordPress names them: no query, no escapes, no dot segments. */
const ROUTE_PATTERN = /^\/[A-Za-z0-9\-._~:@!$'()*+,;=/]*$/;
/** Names PHP keeps as written (it turns `.` and spaces into `_`, and brackets into arrays). */
const PARAM_NAME_PATTERN = /^[A-Za-z0-9_-]+$/;
const OVERRIDE_PARAMS = new Set(["_method", ROUTE_PARAM]);

function programmingError(message: string): AppError {
  return new AppError("invalid_input", message);
}

function checkRoute(route: string): void {
  if (!ROUTE_PATTERN.test(route) || route.split("/").some((segment) => segment === "." || segment === "..")) {
    throw programmingError(`"${route}" is not a REST route like /wp/v2/pages/12.`);
  }
}

function checkQuery(query: SiteQuery | undefined): Array<[string, string]> {
  const pairs = queryPairs(query);
  for (const [name] of pairs) {
    if (!PARAM_NAME_PATTERN.test(name) || OVERRIDE_PARAMS.has(name.toLowerCase())) {
      throw programmingError(`"${name}" cannot be sent as a signed query parameter.`);
    }
  }
  return pairs;
}

type RestRoot = { mode: "path"; prefix: string } | { mode: "query"; endpoint: string };

function restRoot(credentials: SiteCredentials): RestRoot {
  let rest: URL;
  let base: URL;
  try {
    rest = new URL(credentials.restUrl);
    base = new URL(credentials.baseUrl);
  } catch (cause) {
    throw new AppError("invalid_input", "The site's addresses are not valid URLs.", { cause });
  }
  if (rest.origin !== base.origin) {
    throw new AppError("invalid_input", "The site's REST address must be on the site's own origin.", {
      details: { baseUrl: base.origin, restUrl: rest.origin },
    });
  }
  if (rest.searchParams.has(ROUTE_PARAM)) return { mode: "query", endpoint: `${rest.origin}${rest.pathname}` };
  return { mode: "path", prefix: `${rest.origin}${rest.pathname.replace(/\/*$/, "/")}` };
}

function encodedQuery(pairs: Array<[string, string]>): string {
  return pairs.map(([name, value]) => `${percentEncode(name)}=${percentEncode(value)}`).join("&");
}

/** The URL a route and its query go to, for a REST root of either style; exported for the tests' raw requests. */
export function siteRequestUrl(restUrl: string, route: string, pairs: Array<[string, string]>): string {
  return requestUrl(restRoot({ baseUrl: new URL(restUrl).origin, restUrl, token: "", secret: "" }), route, pairs);
}

function requestUrl(root: RestRoot, route: string, pairs: Array<[string, string]>): string {
  if (root.mode === "query") {
    return `${root.endpoint}?${encodedQuery([[ROUTE_PARAM, route], ...pairs])}`;
  }
  const path = route.slice(1).split("/").map(percentEncode).join("/");
  return `${root.prefix}${path}${pairs.length ? `?${encodedQuery(pairs)}` : ""}`;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text.trim() === "") return { ok: true, value: null };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** WordPress answers 404 both for a missing item (`rest_post_invalid_id`...) and for a missing route (`rest_no_route`). */
function notFoundMessage(siteCode: string | undefined): string {
  if (siteCode === "rest_no_route")
    return "The site does not offer this feature. Check the Sitewright Connector plugin is active and up to date.";
  return "That page or item does not exist on the site (it may have been deleted or moved to the trash).";
}

function rejection(status: number, data: unknown): SiteRequestError {
  const error = data && typeof data === "object" ? (data as { code?: unknown; message?: unknown; data?: unknown }) : {};
  const siteCode = typeof error.code === "string" ? error.code : undefined;
  const message =
    (siteCode && Object.hasOwn(SIGNED_REQUEST_ERRORS, siteCode) && rejectionMessages[siteCode as SignedRequestError]) ||
    (status === 404 ? notFoundMessage(siteCode) : `The site refused the request (HTTP ${status}).`);
  return new SiteRequestError("rejected", message, { siteStatus: status, siteCode, siteData: error.data });
}

function unreachable(error: unknown, host: string): SiteRequestError {
  if (error instanceof SafeFetchError) {
    if (error.reason === "too_large") {
      return new SiteRequestError("bad_response", `${host} sent a response larger than Sitewright accepts.`, {
        reason: "too_large",
        cause: error,
      });
    }
    return new SiteRequestError("unreachable", error.message, { reason: error.reason, cause: error });
  }
  if (isAppError(error)) {
    // The SSRF guard (forbidden_host, insecure_url): the site's address is not one we will connect to.
    return new SiteRequestError("unreachable", error.message, { reason: error.code, cause: error });
  }
  return new SiteRequestError("unreachable", `Could not reach ${host}.`, { reason: "network", cause: error });
}

/**
 * A client for one paired site. Every request carries the bearer token, a timestamp strictly greater than the
 * previous one from this client, and the signature; redirects are never followed (they would carry the token).
 */
export function createSiteClient(credentials: SiteCredentials, options: SiteClientOptions = {}): SignedSiteClient {
  const root = restRoot(credentials);
  const host = new URL(credentials.baseUrl).host;
  const clock = options.now ?? nowMs;
  const agents = new PinnedAgents();
  let lastTimestamp = 0;
  const nextTimestamp = () => (lastTimestamp = Math.max(Math.floor(clock()), lastTimestamp + 1));

  async function request<T>({ method, route, query, body, signal }: SiteRequest): Promise<SiteResponse<T>> {
    checkRoute(route);
    const pairs = checkQuery(query);
    const rawBody = body === undefined ? "" : JSON.stringify(body);
    const timestamp = String(nextTimestamp());
    let signature: string;
    try {
      signature = sign(credentials.secret, { timestamp, method, route, query: pairs, body: rawBody });
    } catch (cause) {
      if (cause instanceof SigningInputError) throw programmingError(cause.message);
      throw cause;
    }
    const headers: Record<string, string> = {
      accept: "application/json",
      authorization: `Bearer ${credentials.token}`,
      "user-agent": options.userAgent ?? "Sitewright/1",
      "x-sitewright-timestamp": timestamp,
      "x-sitewright-signature": signature,
    };
    if (rawBody) headers["content-type"] = "application/json; charset=utf-8";

    let response: Awaited<ReturnType<typeof safeFetch>>;
    try {
      response = await safeFetch(requestUrl(root, route, pairs), {
        ...options,
        method,
        headers,
        body: rawBody,
        maxRedirects: 0,
        signal,
        agents,
      });
    } catch (error) {
      throw unreachable(error, host);
    }

    const parsed = parseJson(response.text());
    if (response.status >= 300 && response.status < 400) {
      throw new SiteRequestError(
        "bad_response",
        `The site redirected the request to ${response.headers.get("location") ?? "another address"}. Check its REST address.`,
        {
          siteStatus: response.status,
          reason: "redirect",
        },
      );
    }
    if (response.status >= 400) throw rejection(response.status, parsed.ok ? parsed.value : undefined);
    if (!parsed.ok) {
      throw new SiteRequestError(
        "bad_response",
        "The site answered with something other than JSON. Check that its REST API is reachable.",
        {
          siteStatus: response.status,
          reason: "not_json",
        },
      );
    }
    return { status: response.status, data: parsed.value as T, headers: response.headers };
  }

  return {
    restUrl: credentials.restUrl,
    close: () => agents.close(),
    request,
    get: (route, query) => request({ method: "GET", route, query }),
    post: (route, body) => request({ method: "POST", route, body }),
    put: (route, body) => request({ method: "PUT", route, body }),
    patch: (route, body) => request({ method: "PATCH", route, body }),
    delete: (route, query) => request({ method: "DELETE", route, query }),
  };
}
