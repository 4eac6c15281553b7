import { clearedSessionCookie, destroySession } from "@/lib/auth/session";
import { noContent, route } from "@/lib/http/route";

export const POST = route({ auth: "none" }, async ({ sessionCookie, setCookie }) => {
  await destroySession(sessionCookie);
  setCookie(clearedSessionCookie());
  return noContent();
});
