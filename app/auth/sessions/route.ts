import { signOutEverywhere } from "@/lib/auth/account-settings";
import { clearedSessionCookie } from "@/lib/auth/session";
import { noContent, route } from "@/lib/http/route";

/** Signs out every session of the user, this one included. */
export const DELETE = route({ auth: "session" }, async ({ session, setCookie }) => {
  await signOutEverywhere({ userId: session.userId });
  setCookie(clearedSessionCookie());
  return noContent();
});
