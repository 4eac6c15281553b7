/**
 * Fetch for every URL a user gave us (their site, its REST URL, media): SECURITY.md, "SSRF".
 * The host is resolved once, every address checked, and the connection pinned to a checked address while TLS
 * still verifies the hostname (SNI and certificate), so a DNS answer that changes in between cannot redirect us.
 */
import { lookup as dnsLookup } from "node:dns/promises";
import type { LookupAddress } from "node:dns";
import { isIP } from "node:net";
import { rootCertificates } from "node:tls";
import { Agent, request } from "undici";
import { env } from "../env";
import { AppError, systemCode } from "../errors";
import { blockedReason } from "./ip";

export type ResolvedAddress = { address: string; family: 4 | 6 };
/** Resolves a hostname to all its A and AAAA addresses. Injected in tests. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const defaultResolver: Resolver = async (hostname) => {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true });
  return answers.map((answer) => ({ address: answer.address, family: answer.family === 6 ? 6 : 4 }));
};

export type HostCheckOptions = {
  resolver?: Resolver;
  /** Hosts exempt from the address check; default `SITE_HOST_ALLOWLIST`. */
  allowlist?: readonly string[];
};

export type CheckedHost = {
  hostname: string;
  addresses: ResolvedAddress[];
  /** True when the operator allowlisted the host, so its addresses were not checked. */
  allowlisted: boolean;
};

export type SafeFetchReason =
  | "dns"
  | "connect"
  | "tls"
  | "timeout"
  | "network"
  | "too_large"
  | "too_many_redirects"
  | "off_origin";

/** A failure to get a response from a user-given URL; shown as `502 site_unreachable` unless mapped. */
export class SafeFetchError extends AppError {
  readonly reason: SafeFetchReason;
  constructor(reason: SafeFetchReason, message: string, cause?: unknown) {
    super("site_unreachable", message, { details: { reason }, cause });
    this.name = "SafeFetchError";
    this.reason = reason;
  }
}

function forbiddenHost(hostname: string, why: string): AppError {
  return new AppError(
    "forbidden_host",
    "That address points to a private or reserved network, which Sitewright will not connect to. Use your site's public address.",
    { details: { host: hostname, reason: why } },
  );
}

const bareHost = (hostname: string) =>
  hostname
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/\.$/, "")
    .toLowerCase();

function isAllowlisted(hostname: string, allowlist: readonly string[]): boolean {
  const host = bareHost(hostname);
  return allowlist.some((entry) => bareHost(entry) === host);
}

function parseUrl(input: string | URL): URL {
  try {
    return new URL(input);
  } catch (cause) {
    throw new AppError("invalid_input", "That is not a valid web address.", { cause });
  }
}

/**
 * Resolves the URL's host and checks every address is globally routable unicast (or the host is allowlisted).
 * IP literals, including the URL parser's rewrites of `2130706433`, `0x7f.1` or `127.1`, are checked as written.
 * Throws `forbidden_host` (422), `invalid_input` (400) for userinfo, or a `dns` SafeFetchError.
 */
export async function assertPublicHost(input: string | URL, options: HostCheckOptions = {}): Promise<CheckedHost> {
  const url = parseUrl(input);
  if (url.username || url.password) {
    throw new AppError("invalid_input", "Remove the user name and password from the address.");
  }
  const hostname = bareHost(url.hostname);
  if (!hostname) throw new AppError("invalid_input", "That address has no host name.");
  const allowlisted = isAllowlisted(hostname, options.allowlist ?? env().SITE_HOST_ALLOWLIST);

  const family = isIP(hostname);
  if (family) {
    const why = blockedReason(hostname);
    if (why && !allowlisted) throw forbiddenHost(hostname, why);
    return { hostname, addresses: [{ address: hostname, family: family as 4 | 6 }], allowlisted };
  }

  let addresses: ResolvedAddress[];
  try {
    addresses = await (options.resolver ?? defaultResolver)(hostname);
  } catch (cause) {
    throw new SafeFetchError("dns", `The name ${hostname} could not be found. Check the address.`, cause);
  }
  if (addresses.length === 0) throw new SafeFetchError("dns", `The name ${hostname} has no addresses.`);
  if (!allowlisted) {
    for (const { address } of addresses) {
      const why = blockedReason(address);
      if (why) throw forbiddenHost(hostname, why);
    }
  }
  return { hostname, addresses, allowlisted };
}

export type SafeFetchOptions = HostCheckOptions & {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** http is refused unless this is set AND the host is allowlisted (local development only). */
  allowHttp?: boolean;
  /** Redirects followed, each hop checked again; 0 returns the 3xx response itself. Default 3, at most 3. */
  maxRedirects?: number;
  /** An origin redirects may not leave: a hop to any other is refused (`off_origin`) before it is requested. */
  redirectsWithin?: string;
  connectTimeoutMs?: number;
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** Extra trusted CA certificates (PEM), added to the system roots; for tests against a local CA. */
  ca?: string | readonly string[];
  signal?: AbortSignal;
  /** Keeps connections open between requests (per client); without it each request gets its own connection. */
  agents?: PinnedAgents;
};

export type SafeResponse = {
  status: number;
  headers: Headers;
  /** The URL that answered, after any redirects. */
  url: string;
  body: Buffer;
  text(): string;
};

export const SAFE_FETCH_DEFAULTS = {
  maxRedirects: 3,
  connectTimeoutMs: 5_000,
  timeoutMs: 15_000,
  maxResponseBytes: 10 * 1024 * 1024,
} as const;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Headers that must not follow a redirect to another origin. */
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"];

/** A dispatcher whose every connection goes to one of the addresses we already checked. */
function pinnedAgent(checked: CheckedHost, options: SafeFetchOptions): Agent {
  const pinned = checked.addresses;
  const extraCa =
    options.ca === undefined ? undefined : typeof options.ca === "string" ? [options.ca] : [...options.ca];
  const lookup = (
    hostname: string,
    lookupOptions: { all?: boolean },
    callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    if (bareHost(hostname) !== checked.hostname) {
      callback(
        Object.assign(new Error(`Refusing to resolve ${hostname}: not the checked host.`), { code: "ENOTFOUND" }),
        "",
      );
      return;
    }
    if (lookupOptions.all)
      callback(
        null,
        pinned.map(({ address, family }) => ({ address, family })),
      );
    else callback(null, pinned[0]!.address, pinned[0]!.family);
  };
  return new Agent({
    connect: {
      lookup: lookup as never,
      timeout: options.connectTimeoutMs ?? SAFE_FETCH_DEFAULTS.connectTimeoutMs,
      ...(extraCa ? { ca: [...rootCertificates, ...extraCa] } : {}),
    },
    connections: 8,
  });
}

/**
 * Reusable pinned dispatchers, keyed by the host and the exact addresses it was checked against: a request reuses
 * a connection only when its own fresh check gave the same answer, so pinning holds and keep-alive saves the TLS
 * handshake (about 40 ms a request on loopback here).
 */
export class PinnedAgents {
  private readonly agents = new Map<string, Agent>();
  constructor(private readonly max = 4) {}

  get(checked: CheckedHost, options: SafeFetchOptions): Agent {
    const key = JSON.stringify([
      checked.hostname,
      checked.addresses,
      options.ca ?? null,
      options.connectTimeoutMs ?? null,
    ]);
    let agent = this.agents.get(key);
    if (!agent) {
      agent = pinnedAgent(checked, options);
      this.agents.set(key, agent);
      if (this.agents.size > this.max) {
        const [oldestKey, oldest] = this.agents.entries().next().value as [string, Agent];
        this.agents.delete(oldestKey);
        oldest.close().catch(() => undefined);
      }
    }
    return agent;
  }

  async close(): Promise<void> {
    const agents = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(agents.map((agent) => agent.close().catch(() => undefined)));
  }
}

function networkError(error: unknown, host: string, timedOut: boolean): SafeFetchError {
  if (error instanceof SafeFetchError) return error;
  const code = systemCode(error) ?? "";
  if (timedOut || /TIMEOUT/.test(code) || (error as Error)?.name === "TimeoutError") {
    return new SafeFetchError("timeout", `${host} did not answer in time.`, error);
  }
  if (/CERT|TLS|SSL|ERR_SSL|UNABLE_TO|SELF_SIGNED|HOSTNAME|ALTNAME/.test(code)) {
    return new SafeFetchError("tls", `${host}'s https certificate could not be verified.`, error);
  }
  if (/ECONNREFUSED|EHOSTUNREACH|ENETUNREACH|ECONNRESET|UND_ERR_SOCKET|UND_ERR_CONNECT/.test(code)) {
    return new SafeFetchError("connect", `Could not connect to ${host}.`, error);
  }
  return new SafeFetchError("network", `The request to ${host} failed.`, error);
}

/** Drops a body we will not read; undici reports the abort as an error event, which nobody needs. */
function discard(body: { destroy(): void; on?(event: "error", listener: () => void): unknown }) {
  body.on?.("error", () => undefined);
  body.destroy();
}

async function readCapped(
  body: AsyncIterable<Uint8Array> & { destroy(): void },
  limit: number,
  host: string,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) {
      discard(body);
      throw new SafeFetchError("too_large", `${host} sent more than ${limit} bytes.`);
    }
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

/** One hop: check, pin, send, read (capped). */
type Hop = {
  method: string;
  headers: Record<string, string>;
  body: SafeFetchOptions["body"];
  signal: AbortSignal;
  timeout: AbortSignal;
};

async function fetchOnce(url: URL, options: SafeFetchOptions, { method, headers, body, signal, timeout }: Hop) {
  const checked = await assertPublicHost(url, options);
  if (url.protocol === "http:" && !(options.allowHttp && checked.allowlisted)) {
    throw new AppError("insecure_url", "Only https addresses can be used.", { details: { url: url.origin } });
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new AppError("invalid_input", "Only https addresses can be used.");
  }
  const agent = options.agents ? options.agents.get(checked, options) : pinnedAgent(checked, options);
  const limit = options.maxResponseBytes ?? SAFE_FETCH_DEFAULTS.maxResponseBytes;
  try {
    let response: Awaited<ReturnType<typeof request>>;
    try {
      response = await request(url, {
        method: method as never,
        headers,
        body: body === undefined || body.length === 0 ? undefined : body,
        dispatcher: agent,
        signal,
        maxRedirections: 0,
      });
    } catch (error) {
      throw networkError(error, checked.hostname, timeout.aborted);
    }
    const declared = Number(response.headers["content-length"]);
    if (Number.isFinite(declared) && declared > limit) {
      discard(response.body);
      throw new SafeFetchError("too_large", `${checked.hostname} would send ${declared} bytes, more than ${limit}.`);
    }
    let data: Buffer;
    try {
      data = await readCapped(response.body, limit, checked.hostname);
    } catch (error) {
      throw networkError(error, checked.hostname, timeout.aborted);
    }
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      if (Array.isArray(value)) for (const item of value) responseHeaders.append(name, item);
      else if (value !== undefined) responseHeaders.set(name, value);
    }
    return { status: response.statusCode, headers: responseHeaders, body: data };
  } finally {
    if (!options.agents) agent.close().catch(() => undefined);
  }
}

/**
 * Fetches a user-given URL safely. Redirects are followed only after the next hop passes the same checks, at most
 * three, and credentials are dropped when a redirect leaves the origin.
 */
export async function safeFetch(input: string | URL, options: SafeFetchOptions = {}): Promise<SafeResponse> {
  let url = parseUrl(input);
  const maxRedirects = Math.min(
    options.maxRedirects ?? SAFE_FETCH_DEFAULTS.maxRedirects,
    SAFE_FETCH_DEFAULTS.maxRedirects,
  );
  const timeout = AbortSignal.timeout(options.timeoutMs ?? SAFE_FETCH_DEFAULTS.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let method = (options.method ?? "GET").toUpperCase();
  let headers = { ...(options.headers ?? {}) };
  let body = options.body;

  for (let hop = 0; ; hop++) {
    const result = await fetchOnce(url, options, { method, headers, body, signal, timeout });
    const location = result.headers.get("location");
    if (!REDIRECT_STATUSES.has(result.status) || !location || maxRedirects === 0) {
      return { ...result, url: url.href, text: () => result.body.toString("utf8") };
    }
    if (hop >= maxRedirects) {
      throw new SafeFetchError("too_many_redirects", `${url.hostname} redirected more than ${maxRedirects} times.`);
    }
    const next = parseUrl(new URL(location, url));
    if (options.redirectsWithin !== undefined && next.origin !== options.redirectsWithin) {
      throw new SafeFetchError("off_origin", `${url.hostname} redirected to another site (${next.origin}).`);
    }
    if (next.origin !== url.origin) {
      headers = Object.fromEntries(
        Object.entries(headers).filter(([name]) => !CREDENTIAL_HEADERS.includes(name.toLowerCase())),
      );
    }
    if (result.status === 303 || ((result.status === 301 || result.status === 302) && method === "POST")) {
      method = "GET";
      body = undefined;
      headers = Object.fromEntries(Object.entries(headers).filter(([name]) => !/^content-/i.test(name)));
    }
    url = next;
  }
}
