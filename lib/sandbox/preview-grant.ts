/**
 * The preview grant: the owner's permission to open one sandbox's preview without the session cookie, as the
 * `sw_preview` cookie, path-scoped to that preview. It exists because pages inside the preview run in an opaque
 * origin (preview.ts's CSP): the browser treats their requests (styles, scripts, link clicks) as cross-site and
 * sends no `Lax` session cookie with them. On https it is `SameSite=None; Secure`.
 *
 * Value: `<expires>.<session id hash>.<hmac(userId, sandboxId, expires, session id hash)>`. It is bound to the
 * login session that earned it and checked against the session store on every use, so it dies with that session
 * (logout, password change from another session, sign out everywhere, idle or absolute expiry), and with the
 * sandbox. The session id hash is the store's key, not a credential: a session cookie cannot be made from it.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { isLiveSession } from "@/lib/auth/session";

export const PREVIEW_GRANT_COOKIE = "sw_preview";
const GRANT = /^(\d{9,11})\.([0-9a-f]{64})\.([0-9a-f]{64})$/;
/** A browser sends one cookie per path that matches; more than a few is not ours. */
const MAX_GRANTS_CHECKED = 4;

type GrantFor = { secret: string; userId: string; sandboxId: string };

/** The `Set-Cookie` value of a grant for the owner's current login session (`sessionIdHash`). */
export function previewGrantCookie(
  input: GrantFor & { sessionIdHash: string; expiresAt: Date; appUrl: string; path: string },
): string {
  const expires = Math.floor(input.expiresAt.getTime() / 1000);
  const value = `${expires}.${input.sessionIdHash}.${sign(input, expires, input.sessionIdHash)}`;
  const secure = input.appUrl.startsWith("https://");
  const maxAge = Math.max(0, expires - Math.floor(Date.now() / 1000));
  return [
    `${PREVIEW_GRANT_COOKIE}=${value}`,
    `Path=${input.path}`,
    `Max-Age=${maxAge}`,
    "HttpOnly",
    secure ? "Secure" : "",
    secure ? "SameSite=None" : "SameSite=Lax",
  ]
    .filter(Boolean)
    .join("; ");
}

/** The session id hashes of the well-signed, unexpired grants the request carries for this owner and sandbox. */
export function signedGrantSessions(input: GrantFor & { cookieHeader: string | null; now: Date }): string[] {
  const sessions: string[] = [];
  for (const value of cookieValues(input.cookieHeader, PREVIEW_GRANT_COOKIE).slice(0, MAX_GRANTS_CHECKED)) {
    const match = GRANT.exec(value);
    if (!match?.[1] || !match[2] || !match[3]) continue;
    const expires = Number(match[1]);
    if (expires * 1000 <= input.now.getTime()) continue;
    const expected = Buffer.from(sign(input, expires, match[2]), "hex");
    if (timingSafeEqual(expected, Buffer.from(match[3], "hex"))) sessions.push(match[2]);
  }
  return sessions;
}

/** True when the request carries a grant of the sandbox's owner whose login session is still live. */
export async function hasLivePreviewGrant(
  input: GrantFor & { cookieHeader: string | null; now: Date },
): Promise<boolean> {
  for (const idHash of signedGrantSessions(input)) {
    if (await isLiveSession({ idHash, userId: input.userId })) return true;
  }
  return false;
}

function sign(input: GrantFor, expires: number, sessionIdHash: string) {
  return createHmac("sha256", input.secret)
    .update(`sitewright-preview-grant\n${input.userId}\n${input.sandboxId}\n${expires}\n${sessionIdHash}`)
    .digest("hex");
}

function cookieValues(header: string | null, name: string): string[] {
  if (!header) return [];
  return header
    .split(";")
    .map((part) => part.trim())
    .filter((part) => part.startsWith(`${name}=`))
    .map((part) => part.slice(name.length + 1));
}
