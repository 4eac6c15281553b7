/**
 * The preview: a sandbox opened in a browser through the service's own origin, at `${APP_URL}/preview/<id>/…`.
 * Requests are forwarded to the container's loopback port with `X-Sitewright-Preview: <that base>`, and the
 * sandbox's wp-config makes WordPress believe it is served exactly there: links, redirects and cookie paths stay
 * inside the preview. As a safety net, any container address left in a `Location`, a cookie or a text body is
 * rewritten to the preview base, so none ever reaches a browser.
 *
 * Who may open it is decided by the caller (the manager: the owner's session, or the preview cookie this module
 * signs). The sandbox's content is not ours: the agent wrote it, copied pages may carry anything. So every
 * response carries `Content-Security-Policy: sandbox` without `allow-same-origin`: its scripts run in an opaque
 * origin and cannot use the owner's Sitewright session (same-origin fetches to our routes are cross-origin for
 * them, and our state-changing routes refuse their `Origin: null`).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Sandbox } from "@/lib/db/schema";
import { sandboxUrl } from "./client";

export const PREVIEW_PREFIX = "/preview";
/** The preview cookie lives as long as the sandbox might (the longest TTL is capped by config). */
const PREVIEW_COOKIE = "sw_preview";
const MAX_FORWARDED_BODY = 16 * 1024 * 1024;
const TIMEOUT_MS = 60_000;

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
  "x-sitewright-preview",
  "x-sitewright-sandbox-expires",
  "x-sitewright-provision",
  "x-sitewright-signature",
  "x-sitewright-timestamp",
  "accept-encoding",
]);
const DROP_RESPONSE = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "content-encoding",
  "set-cookie",
  "location",
  "content-security-policy",
  "x-powered-by",
  // PHP's built-in server echoes the request's Host (the container's address) in its answer.
  "host",
]);
const TEXT_TYPES = /^(text\/|application\/(json|javascript|xml|rss\+xml|atom\+xml|ld\+json)|image\/svg\+xml)/i;
/** Our own cookies never reach the sandbox (the session, the preview grant, anything of ours). */
const OURS = /^(__Host-)?sw_/;

/**
 * WordPress's own static files (core, themes, plugins: the same in every sandbox of one image) and core's asset
 * concatenators. A page in the preview runs in an opaque origin, so the browser asks for these cross-site and may
 * send no cookie at all (third-party cookie blocking): they are served to anyone who names a ready sandbox.
 * Pages, the REST API, uploads and wp-admin screens stay owner-only.
 */
const PUBLIC_ASSET =
  /^\/(?:(?:wp-includes|wp-content\/themes|wp-content\/plugins|wp-admin\/css|wp-admin\/js|wp-admin\/images)\/[A-Za-z0-9._/-]+\.(?:css|js|mjs|map|png|jpe?g|gif|svg|webp|ico|woff2?|ttf|eot)|wp-admin\/load-(?:styles|scripts)\.php)$/;

export const isPublicAsset = (method: string, path: string) =>
  (method === "GET" || method === "HEAD") && !path.includes("..") && PUBLIC_ASSET.test(path);

export const previewBase = (appUrl: string, sandboxId: string) => `${appUrl}${PREVIEW_PREFIX}/${sandboxId}`;
export const previewUrl = (appUrl: string, sandboxId: string) => `${previewBase(appUrl, sandboxId)}/`;

// ------------------------------------------------------------------ the preview cookie

/**
 * The owner's grant for one sandbox's preview: `<expires>.<hmac(userId, sandboxId, expires)>`, path-scoped to
 * that preview. It exists because pages inside the preview run in an opaque origin (the CSP above): the
 * browser treats their requests (styles, scripts, images, link clicks) as cross-site and sends no `Lax` session
 * cookie with them. On https it is `SameSite=None; Secure`; a cross-site request can at most reach the owner's
 * own disposable sandbox, never our routes (the cookie's path is the preview's).
 */
export function previewCookie(input: {
  secret: string;
  appUrl: string;
  userId: string;
  sandbox: Pick<Sandbox, "id" | "expiresAt">;
}): string {
  const expires = Math.floor(input.sandbox.expiresAt.getTime() / 1000);
  const value = `${expires}.${sign(input.secret, input.userId, input.sandbox.id, expires)}`;
  const secure = input.appUrl.startsWith("https://");
  const maxAge = Math.max(0, expires - Math.floor(Date.now() / 1000));
  return [
    `${PREVIEW_COOKIE}=${value}`,
    `Path=${PREVIEW_PREFIX}/${input.sandbox.id}/`,
    `Max-Age=${maxAge}`,
    "HttpOnly",
    secure ? "Secure" : "",
    secure ? "SameSite=None" : "SameSite=Lax",
  ]
    .filter(Boolean)
    .join("; ");
}

/** True when the request carries a valid preview grant of `userId` for this sandbox. */
export function hasPreviewGrant(input: {
  cookieHeader: string | null;
  secret: string;
  userId: string;
  sandboxId: string;
  now: Date;
}): boolean {
  for (const value of cookieValues(input.cookieHeader, PREVIEW_COOKIE)) {
    const match = /^(\d{9,11})\.([0-9a-f]{64})$/.exec(value);
    if (!match?.[1] || !match[2]) continue;
    const expires = Number(match[1]);
    if (expires * 1000 < input.now.getTime()) continue;
    const expected = Buffer.from(sign(input.secret, input.userId, input.sandboxId, expires), "hex");
    if (timingSafeEqual(expected, Buffer.from(match[2], "hex"))) return true;
  }
  return false;
}

/** The user a preview cookie may belong to is not in the cookie: the caller tries the sandbox's owner. */
export const hasPreviewCookie = (cookieHeader: string | null) => cookieValues(cookieHeader, PREVIEW_COOKIE).length > 0;

function sign(secret: string, userId: string, sandboxId: string, expires: number) {
  return createHmac("sha256", secret).update(`sitewright-preview\n${userId}\n${sandboxId}\n${expires}`).digest("hex");
}

function cookieValues(header: string | null, name: string): string[] {
  if (!header) return [];
  return header
    .split(";")
    .map((part) => part.trim())
    .filter((part) => part.startsWith(`${name}=`))
    .map((part) => part.slice(name.length + 1));
}

// ------------------------------------------------------------------ forwarding

/**
 * Forwards one browser request to the sandbox and rewrites the answer for the preview. `path` is what follows
 * `/preview/<id>` (always starting with `/`), `search` the query string with its `?`.
 */
export async function forwardToSandbox(input: {
  request: Request;
  sandbox: Pick<Sandbox, "id" | "hostPort" | "expiresAt">;
  appUrl: string;
  path: string;
  search: string;
  extraCookies?: string[];
}): Promise<Response> {
  const { request, sandbox } = input;
  if (!sandbox.hostPort) throw new Error(`sandbox ${sandbox.id} has no port`);
  const origin = sandboxUrl(sandbox.hostPort);
  const base = previewBase(input.appUrl, sandbox.id);

  const headers = new Headers();
  for (const [name, value] of request.headers) {
    if (!DROP_REQUEST.has(name.toLowerCase()) && !name.toLowerCase().startsWith("x-sitewright")) {
      headers.set(name, value);
    }
  }
  const cookie = (request.headers.get("cookie") ?? "")
    .split(";")
    .map((part) => part.trim())
    .filter((part) => part && !OURS.test(part))
    .join("; ");
  if (cookie) headers.set("cookie", cookie);
  headers.set("x-sitewright-preview", base);
  headers.set("x-sitewright-sandbox-expires", String(Math.floor(sandbox.expiresAt.getTime() / 1000)));

  const method = request.method.toUpperCase();
  let body: ArrayBuffer | undefined;
  if (method !== "GET" && method !== "HEAD") {
    const declared = Number(request.headers.get("content-length") ?? 0);
    if (declared > MAX_FORWARDED_BODY) return plain(413, "This request is too large for a sandbox preview.");
    body = await request.arrayBuffer();
    if (body.byteLength > MAX_FORWARDED_BODY) return plain(413, "This request is too large for a sandbox preview.");
  }

  const upstream = await fetch(`${origin}${input.path}${input.search}`, {
    method,
    headers,
    body,
    redirect: "manual",
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });

  const out = new Headers();
  for (const [name, value] of upstream.headers) {
    if (!DROP_RESPONSE.has(name.toLowerCase())) out.set(name, rewriteText(value, origin, base));
  }
  const location = upstream.headers.get("location");
  if (location) out.set("location", rewriteLocation(location, origin, base));
  for (const setCookie of upstream.headers.getSetCookie()) out.append("set-cookie", scopeCookie(setCookie, sandbox.id));
  for (const extra of input.extraCookies ?? []) out.append("set-cookie", extra);
  out.set(
    "content-security-policy",
    "sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads; frame-ancestors 'self'",
  );
  out.set("x-robots-tag", "noindex, nofollow");
  out.set("referrer-policy", "same-origin");
  out.set("x-content-type-options", "nosniff");
  if (!out.has("cache-control")) out.set("cache-control", "private, no-cache");

  const type = upstream.headers.get("content-type") ?? "";
  if (method === "HEAD" || upstream.status === 204 || upstream.status === 304 || !upstream.body) {
    await upstream.body?.cancel();
    return new Response(null, { status: upstream.status, headers: out });
  }
  if (TEXT_TYPES.test(type)) {
    const text = rewriteText(await upstream.text(), origin, base);
    return new Response(text, { status: upstream.status, headers: out });
  }
  return new Response(upstream.body, { status: upstream.status, headers: out });
}

/** Every spelling of the container's address in a text body, replaced by the preview base. */
export function rewriteText(text: string, origin: string, base: string): string {
  const hostPort = origin.replace(/^http:\/\//, "");
  const escapedBase = base.replaceAll("/", "\\/");
  return text
    .replaceAll(`http:\\/\\/${hostPort}`, escapedBase)
    .replaceAll(`http://${hostPort}`, base)
    .replaceAll(`http%3A%2F%2F${hostPort.replace(":", "%3A")}`, encodeURIComponent(base))
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

function plain(status: number, message: string) {
  return new Response(message, { status, headers: { "content-type": "text/plain; charset=utf-8" } });
}
