/** Session access for server components and server actions (route handlers go through lib/http/route.ts). */
import { cookies } from "next/headers";
import { readSession, sessionCookieName, type AuthenticatedSession, type CookieSpec } from "./session";

export async function currentSession(): Promise<AuthenticatedSession | undefined> {
  const store = await cookies();
  return readSession(store.get(sessionCookieName())?.value);
}

export async function currentSessionCookie(): Promise<string | undefined> {
  return (await cookies()).get(sessionCookieName())?.value;
}

export async function setSessionCookie(cookie: CookieSpec) {
  (await cookies()).set(cookie.name, cookie.value, cookie.options);
}
