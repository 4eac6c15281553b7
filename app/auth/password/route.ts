import { changePassword, changePasswordSchema } from "@/lib/auth/account-settings";
import { noContent, route } from "@/lib/http/route";

/** A new password; this session stays, every other one is signed out. */
export const POST = route({ auth: "session", body: changePasswordSchema }, async ({ body, ip, session }) => {
  await changePassword({ userId: session.userId, ...body, keepSessionIdHash: session.idHash, ip });
  return noContent();
});
