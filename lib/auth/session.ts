/**
 * Sessions: the cookie is an iron-session seal of `{ sid }` and nothing else; the record (user, created, last
 * seen, expiry) lives in the session store, so logout, idle expiry and absolute expiry are decided server-side.
 * The store keeps only a SHA-256 of the id.
 */
import { createHash, randomBytes } from "node:crypto";
import { sealData, unsealData } from "iron-session";
import { now } from "@/lib/clock";
import { env } from "@/lib/env";
import { deleteSession, findSessionWithUser, insertSession, touchSession } from "@/lib/db/queries";
import type { User } from "@/lib/db/schema";

export const SESSION_IDLE_MS = 7 * 24 * 60 * 60 * 1000;
export const SESSION_ABSOLUTE_MS = 30 * 24 * 60 * 60 * 1000;
/** Writing last-seen on every request would make every read a write; a minute of slack is plenty for idle expiry. */
const TOUCH_AFTER_MS = 60 * 1000;

export type CookieSpec = {
  name: string;
  value: string;
  options: { httpOnly: true; sameSite: "lax"; path: "/"; secure: boolean; maxAge: number };
};

export type AuthenticatedSession = { userId: string; user: PublicUser; idHash: string };
export type PublicUser = { id: string; email: string; name: string | null };

export const toPublicUser = (user: User): PublicUser => ({ id: user.id, email: user.email, name: user.name });

const hashId = (sid: string) => createHash("sha256").update(sid).digest("hex");

export function sessionCookieName(): string {
  return env().APP_URL.startsWith("https://") ? "__Host-sw_session" : "sw_session";
}

function cookieSecure(): boolean {
  const { APP_URL, NODE_ENV } = env();
  return APP_URL.startsWith("https://") || NODE_ENV === "production";
}

export async function createSession(userId: string): Promise<CookieSpec> {
  const sid = randomBytes(32).toString("base64url");
  const createdAt = now();
  await insertSession({
    idHash: hashId(sid),
    userId,
    createdAt,
    lastSeenAt: createdAt,
    expiresAt: new Date(createdAt.getTime() + SESSION_ABSOLUTE_MS),
  });
  const value = await sealData({ sid }, { password: env().SESSION_SECRET, ttl: SESSION_ABSOLUTE_MS / 1000 + 60 });
  return {
    name: sessionCookieName(),
    value,
    options: { httpOnly: true, sameSite: "lax", path: "/", secure: cookieSecure(), maxAge: SESSION_ABSOLUTE_MS / 1000 },
  };
}

export function clearedSessionCookie(): CookieSpec {
  return {
    name: sessionCookieName(),
    value: "",
    options: { httpOnly: true, sameSite: "lax", path: "/", secure: cookieSecure(), maxAge: 0 },
  };
}

async function idHashFromCookie(cookieValue: string | undefined): Promise<string | undefined> {
  if (!cookieValue || cookieValue.length > 4096) return undefined;
  // The current secret first, then SESSION_SECRET_PREVIOUS: cookies sealed before a rotation open until they expire
  // (a wrong secret is a bad MAC, answered with `{}`; cookies keep iron-session's plain single-password format).
  const { SESSION_SECRET, SESSION_SECRET_PREVIOUS } = env();
  for (const password of [SESSION_SECRET, ...SESSION_SECRET_PREVIOUS]) {
    try {
      const data = await unsealData<{ sid?: unknown }>(cookieValue, { password, ttl: SESSION_ABSOLUTE_MS / 1000 + 60 });
      if (typeof data.sid === "string" && data.sid.length > 0) return hashId(data.sid);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The live session behind a cookie, or undefined when it is missing, forged, logged out, idle or past its end. */
export async function readSession(cookieValue: string | undefined): Promise<AuthenticatedSession | undefined> {
  const idHash = await idHashFromCookie(cookieValue);
  if (!idHash) return undefined;
  const row = await findSessionWithUser({ idHash });
  if (!row) return undefined;
  const current = now();
  const { session, user } = row;
  if (session.expiresAt <= current || current.getTime() - session.lastSeenAt.getTime() >= SESSION_IDLE_MS) {
    await deleteSession({ idHash });
    return undefined;
  }
  if (current.getTime() - session.lastSeenAt.getTime() > TOUCH_AFTER_MS) {
    await touchSession({ idHash, lastSeenAt: current });
  }
  return { userId: user.id, user: toPublicUser(user), idHash };
}

/**
 * True while the session whose id hashes to `idHash` is live and belongs to `userId`: what a grant bound to a login
 * session (the sandbox preview's) checks on every use, so it dies at logout, password change and sign-out
 * everywhere. Read-only: a grant's use does not extend the session.
 */
export async function isLiveSession({ idHash, userId }: { idHash: string; userId: string }): Promise<boolean> {
  const row = await findSessionWithUser({ idHash });
  if (!row || row.user.id !== userId) return false;
  const current = now();
  return row.session.expiresAt > current && current.getTime() - row.session.lastSeenAt.getTime() < SESSION_IDLE_MS;
}

export async function destroySession(cookieValue: string | undefined): Promise<void> {
  const idHash = await idHashFromCookie(cookieValue);
  if (idHash) await deleteSession({ idHash });
}

export function serializeCookie({ name, value, options }: CookieSpec): string {
  const parts = [`${name}=${value}`, `Path=${options.path}`, `Max-Age=${options.maxAge}`, "HttpOnly", "SameSite=Lax"];
  if (options.secure) parts.push("Secure");
  if (options.maxAge === 0) parts.push("Expires=Thu, 01 Jan 1970 00:00:00 GMT");
  return parts.join("; ");
}

export function readCookie(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const index = part.indexOf("=");
    if (index > 0 && part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return undefined;
}
