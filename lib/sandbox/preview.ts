/**
 * The preview: a sandbox opened in a browser through the service's own origin, at `${APP_URL}/preview/<id>/…`.
 * Requests are forwarded to the sandbox's stored endpoint (the address its driver answered: a loopback port on
 * Docker, a pod's address on Kubernetes) with `X-Sitewright-Preview: <that base>`, and the sandbox's wp-config makes
 * WordPress believe it is served exactly there: links, redirects and cookie paths stay inside the preview. As a
 * safety net, the endpoint's address left in a `Location`, a cookie or a text body is rewritten to the preview
 * base, so none ever reaches a browser.
 *
 * Who gets through (`openPreview`): the owner's session, or the preview grant bound to it (preview-grant.ts);
 * anyone naming a ready sandbox gets only files that exist among its image's static files (preview-assets.ts),
 * asked for without their query string. Everything else is `404 not_found`, as for every other sandbox route.
 *
 * The sandbox's content is not ours: the agent wrote it, copied pages may carry anything. So every response
 * carries `Content-Security-Policy: sandbox` without `allow-same-origin` (its scripts run in an opaque origin and
 * cannot use the owner's Sitewright session), and only an allowlist of the sandbox's response headers reaches the
 * browser. Request bodies are counted as they stream and cut at `MAX_FORWARDED_BODY`.
 */
import { now as clockNow } from "@/lib/clock";
import { findSandboxById, touchSandbox } from "@/lib/db/queries";
import type { Sandbox } from "@/lib/db/schema";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { sandboxOrigin } from "./client";
import { isListedStaticFile, type SandboxExec, staticFileCandidate, staticFileRequest } from "./preview-assets";
import { hasLivePreviewGrant, previewGrantCookie, signedGrantSessions } from "./preview-grant";
import { previewViewerHeader } from "./preview-viewer";

export const PREVIEW_PREFIX = "/preview";
export const MAX_FORWARDED_BODY = 16 * 1024 * 1024;
const TIMEOUT_MS = 60_000;
const SANDBOX_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Headers we never pass to the sandbox: hop-by-hop, our own, and ones WordPress must not trust from a browser. */
const DROP_REQUEST = new Set([
  "host",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "upgrade",
  "proxy-authorization",
  "te",
  "trailer",
  "content-length",
  "cookie",
  "authorization",
  "forwarded",
  "x-forwarded-for",
  "x-forwarded-host",
  "x-forwarded-proto",
  "x-real-ip",
  "accept-encoding",
  // fetch refuses to send it; the 100 Continue is the server's to give (Node gives it), not the sandbox's.
  "expect",
]);
/** What a request for a public static file may carry: no cookie, nothing that reaches PHP. */
const STATIC_REQUEST = new Set([
  "accept",
  "accept-language",
  "if-none-match",
  "if-modified-since",
  "range",
  "if-range",
]);
/**
 * The sandbox's response headers that reach the browser; every other one is dropped (`Refresh`, `Link`,
 * `Clear-Site-Data`, CORS, `Content-Security-Policy`, `Server`, …). `Location` and `Set-Cookie` pass rewritten;
 * `Content-Length` only with a body passed on untouched. WordPress's REST pagination and `Allow` stay, since its
 * own screens read them.
 */
const PASS_RESPONSE = new Set([
  "content-type",
  "content-disposition",
  "content-language",
  "content-range",
  "accept-ranges",
  "cache-control",
  "expires",
  "etag",
  "last-modified",
  "vary",
  "allow",
  "retry-after",
  "x-wp-total",
  "x-wp-totalpages",
]);
const TEXT_TYPES = /^(text\/|application\/(json|javascript|xml|rss\+xml|atom\+xml|ld\+json)|image\/svg\+xml)/i;
/** Our own cookies never reach the sandbox (the session, the preview grant, anything of ours). */
const OURS = /^(__Host-)?sw_/;

export const previewBase = (appUrl: string, sandboxId: string) => `${appUrl}${PREVIEW_PREFIX}/${sandboxId}`;
export const previewUrl = (appUrl: string, sandboxId: string) => `${previewBase(appUrl, sandboxId)}/`;

const notFound = () => new AppError("not_found", "There is no such sandbox in your account.");
const tooLarge = () =>
  new AppError(
    "payload_too_large",
    `This request is larger than a sandbox preview accepts (${MAX_FORWARDED_BODY / 1024 / 1024} MiB).`,
  );

// ------------------------------------------------------------------ who gets through

/** What the preview needs from the process's sandbox manager (lib/sandbox/sandboxes.ts). */
export type PreviewSandboxes = {
  assertEnabled(): void;
  readonly fleet: { exec: SandboxExec };
  /** Read for the manager's own APP_URL, which it exposes only there. */
  rehearsals(): { appUrl: string };
};

/**
 * One browser request to a sandbox's preview. `path` is what follows `/preview/<id>` as the browser sent it
 * (always starting with `/`), `search` the query string with its `?`, `session` the caller's live login session.
 */
export async function openPreview(input: {
  request: Request;
  sandboxId: string;
  path: string;
  search: string;
  session: { userId: string; idHash: string } | undefined;
  sessionSecret: string;
  sandboxes: PreviewSandboxes;
}): Promise<Response> {
  const { request, session } = input;
  input.sandboxes.assertEnabled();
  if (!SANDBOX_ID.test(input.sandboxId)) throw notFound();
  const sandbox = await findSandboxById({ id: input.sandboxId });
  const now = clockNow();
  if (!sandbox?.userId || sandbox.status !== "ready" || !sandbox.endpoint || sandbox.expiresAt <= now) throw notFound();
  const appUrl = input.sandboxes.rehearsals().appUrl;

  const file = staticFileCandidate(request.method.toUpperCase(), input.path);
  if (
    file &&
    (await isListedStaticFile({ file, sandbox, exec: input.sandboxes.fleet.exec.bind(input.sandboxes.fleet) }))
  ) {
    return forwardToSandbox({ request, sandbox, appUrl, ...staticFileRequest(file, input.search), staticFile: true });
  }

  const grant = {
    cookieHeader: request.headers.get("cookie"),
    secret: input.sessionSecret,
    userId: sandbox.userId,
    sandboxId: sandbox.id,
    now,
  };
  const owner = session?.userId === sandbox.userId ? session : undefined;
  if (!owner && !(await hasLivePreviewGrant(grant))) throw notFound();
  await touchSandbox({ id: sandbox.id, now });
  const extraCookies =
    owner && !signedGrantSessions(grant).includes(owner.idHash)
      ? [
          previewGrantCookie({
            secret: input.sessionSecret,
            userId: sandbox.userId,
            sandboxId: sandbox.id,
            sessionIdHash: owner.idHash,
            expiresAt: sandbox.expiresAt,
            appUrl,
            path: `${PREVIEW_PREFIX}/${sandbox.id}/`,
          }),
        ]
      : [];
  // The owner sees their drafts and private items too (preview-viewer.ts).
  const viewer = await previewViewerHeader({
    exec: input.sandboxes.fleet.exec.bind(input.sandboxes.fleet),
    sandbox,
    secret: input.sessionSecret,
  });
  return forwardToSandbox({
    request,
    sandbox,
    appUrl,
    path: input.path,
    search: input.search,
    extraCookies,
    extraHeaders: viewer,
  });
}

// ------------------------------------------------------------------ forwarding

/**
 * Forwards one browser request to the sandbox and rewrites the answer for the preview. `path` is what follows
 * `/preview/<id>` (always starting with `/`), `search` the query string with its `?`. A `staticFile` request
 * carries no cookie and no body, and its answer may be read by any origin (fonts and module scripts are fetched
 * with CORS from the preview's opaque origin).
 */
export async function forwardToSandbox(input: {
  request: Request;
  sandbox: Pick<Sandbox, "id" | "endpoint" | "expiresAt">;
  appUrl: string;
  path: string;
  search: string;
  extraCookies?: string[];
  /** Headers of ours for the sandbox (never the browser's: every `x-sitewright*` header it sends is dropped). */
  extraHeaders?: Record<string, string>;
  staticFile?: boolean;
}): Promise<Response> {
  const { request, sandbox } = input;
  if (!sandbox.endpoint) throw new Error(`sandbox ${sandbox.id} has no endpoint`);
  const origin = sandboxOrigin(sandbox.endpoint).origin;
  const base = previewBase(input.appUrl, sandbox.id);
  const method = request.method.toUpperCase();

  const headers = new Headers();
  for (const [name, value] of request.headers) {
    const key = name.toLowerCase();
    if (input.staticFile ? STATIC_REQUEST.has(key) : !DROP_REQUEST.has(key) && !key.startsWith("x-sitewright")) {
      headers.set(name, value);
    }
  }
  if (!input.staticFile) {
    const cookie = (request.headers.get("cookie") ?? "")
      .split(";")
      .map((part) => part.trim())
      .filter((part) => part && !OURS.test(part))
      .join("; ");
    if (cookie) headers.set("cookie", cookie);
  }
  headers.set("x-sitewright-preview", base);
  headers.set("x-sitewright-sandbox-expires", String(Math.floor(sandbox.expiresAt.getTime() / 1000)));
  if (!input.staticFile) for (const [name, value] of Object.entries(input.extraHeaders ?? {})) headers.set(name, value);

  const hasBody = !input.staticFile && method !== "GET" && method !== "HEAD" && request.body !== null;
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (hasBody && declared > MAX_FORWARDED_BODY) {
    await request.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  const limit = { exceeded: false };
  let upstream: Response;
  try {
    upstream = await fetch(`${origin}${input.path}${input.search}`, {
      method,
      headers,
      ...(hasBody ? { body: countedBody(request.body!, MAX_FORWARDED_BODY, limit), duplex: "half" as const } : {}),
      redirect: "manual",
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    if (limit.exceeded) throw tooLarge();
    log.warn("the sandbox did not answer a preview request", { sandboxId: sandbox.id, error });
    throw new AppError("sandbox_unavailable", "The sandbox did not answer. Try again, or start a new sandbox.", {
      cause: error,
    });
  }
  if (limit.exceeded) {
    await upstream.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  return previewResponse({
    upstream,
    origin,
    base,
    method,
    sandboxId: sandbox.id,
    extraCookies: input.extraCookies,
    staticFile: input.staticFile,
  });
}

/**
 * The request body as it streams, counted: past `max` bytes the stream fails (which aborts the upstream request
 * and cancels the browser's body), so memory stays flat whatever the body's size or encoding.
 */
function countedBody(body: ReadableStream<Uint8Array>, max: number, limit: { exceeded: boolean }) {
  let seen = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > max) {
          limit.exceeded = true;
          controller.error(tooLarge());
          return;
        }
        controller.enqueue(chunk);
      },
    }),
  );
}

async function previewResponse(input: {
  upstream: Response;
  origin: string;
  base: string;
  method: string;
  sandboxId: string;
  extraCookies?: string[];
  staticFile?: boolean;
}): Promise<Response> {
  const { upstream, origin, base } = input;
  const out = new Headers();
  for (const [name, value] of upstream.headers) {
    if (PASS_RESPONSE.has(name.toLowerCase())) out.set(name, rewriteText(value, origin, base));
  }
  const location = upstream.headers.get("location");
  if (location) out.set("location", rewriteLocation(location, origin, base));
  if (!input.staticFile) {
    for (const setCookie of upstream.headers.getSetCookie()) {
      out.append("set-cookie", scopeCookie(setCookie, input.sandboxId));
    }
  }
  for (const extra of input.extraCookies ?? []) out.append("set-cookie", extra);
  out.set(
    "content-security-policy",
    "sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads; frame-ancestors 'self'",
  );
  out.set("x-robots-tag", "noindex, nofollow");
  out.set("referrer-policy", "same-origin");
  out.set("x-content-type-options", "nosniff");
  if (input.staticFile) out.set("access-control-allow-origin", "*");
  if (!out.has("cache-control")) out.set("cache-control", "private, no-cache");

  const type = upstream.headers.get("content-type") ?? "";
  const length = upstream.headers.get("content-length");
  const untouched = !TEXT_TYPES.test(type);
  if (untouched && length && /^\d{1,12}$/.test(length)) out.set("content-length", length);
  if (input.method === "HEAD" || upstream.status === 204 || upstream.status === 304 || !upstream.body) {
    await upstream.body?.cancel();
    return new Response(null, { status: upstream.status, headers: out });
  }
  if (!untouched) {
    const text = rewriteText(await upstream.text(), origin, base);
    return new Response(text, { status: upstream.status, headers: out });
  }
  return new Response(upstream.body, { status: upstream.status, headers: out });
}

/**
 * Every spelling of the sandbox's endpoint (`http://<host>:<port>`, whatever host: loopback, a pod's IPv4 or
 * bracketed IPv6 address) in a text body, replaced by the preview base: plain, JSON-escaped, URL-encoded and
 * scheme-relative.
 */
export function rewriteText(text: string, origin: string, base: string): string {
  const hostPort = origin.replace(/^http:\/\//, "");
  const escapedBase = base.replaceAll("/", "\\/");
  return text
    .replaceAll(`http:\\/\\/${hostPort}`, escapedBase)
    .replaceAll(`http://${hostPort}`, base)
    .replaceAll(encodeURIComponent(`http://${hostPort}`), encodeURIComponent(base))
    .replaceAll(`//${hostPort}`, base.replace(/^https?:/, ""));
}

function rewriteLocation(location: string, origin: string, base: string): string {
  if (location.startsWith(origin)) return base + location.slice(origin.length);
  if (location.startsWith("/") && !location.startsWith("//")) {
    const prefix = new URL(base).pathname;
    return location.startsWith(`${prefix}/`) || location === prefix ? location : `${prefix}${location}`;
  }
  return rewriteText(location, origin, base);
}

/** A sandbox cookie stays inside its preview: path forced under the prefix, no Domain attribute. */
export function scopeCookie(setCookie: string, sandboxId: string): string {
  const prefix = `${PREVIEW_PREFIX}/${sandboxId}`;
  const parts = setCookie.split(";").map((part) => part.trim());
  const kept = [parts[0] ?? ""];
  let path = `${prefix}/`;
  for (const attribute of parts.slice(1)) {
    const [name, ...rest] = attribute.split("=");
    const key = (name ?? "").trim().toLowerCase();
    if (key === "domain") continue;
    if (key === "path") {
      const value = rest.join("=").trim() || "/";
      path =
        value.startsWith(`${prefix}/`) || value === prefix
          ? value
          : `${prefix}${value.startsWith("/") ? "" : "/"}${value}`;
      continue;
    }
    kept.push(attribute);
  }
  kept.push(`Path=${path}`);
  return kept.join("; ");
}

// ------------------------------------------------------------------ kept for SandboxManager.preview
