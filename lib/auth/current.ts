/** Session access for server components and server actions (route handlers go through lib/http/route.ts). */
import { cookies, headers } from "next/headers";
import { readSession, sessionCookieName, type AuthenticatedSession, type CookieSpec } from "./session";
import { clientIp } from "@/lib/http/client-ip";

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

/** The client's address, read the same way route handlers read it. */
export async function currentClientIp(): Promise<string> {
  const h = await headers();
  return clientIp(new Request("http://internal/", { headers: h }));
}
