import { verifyEmail, verifyEmailSchema } from "@/lib/auth/email-verification";
import { json, route } from "@/lib/http/route";

/** Marks the address verified with a mailed link's token (no session needed: the link may open anywhere). */
export const POST = route({ auth: "none", body: verifyEmailSchema }, async ({ body, ip }) => {
  await verifyEmail({ token: body.token, ip });
  return json(200, { emailVerified: true });
});
