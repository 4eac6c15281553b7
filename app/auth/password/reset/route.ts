import { resetPassword, resetPasswordSchema } from "@/lib/auth/password-reset";
import { clearedSessionCookie } from "@/lib/auth/session";
import { json, route } from "@/lib/http/route";

/** A new password with a mailed link's token; every session of the account is signed out. */
export const POST = route({ auth: "none", body: resetPasswordSchema }, async ({ body, ip, setCookie }) => {
  await resetPassword({ ...body, ip });
  setCookie(clearedSessionCookie());
  return json(200, { passwordChanged: true });
});
