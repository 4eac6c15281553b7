import { forgotPasswordSchema, requestPasswordReset } from "@/lib/auth/password-reset";
import { json, route } from "@/lib/http/route";

/** Mails a reset link when the address has an account; the answer is the same either way. */
export const POST = route({ auth: "none", body: forgotPasswordSchema }, async ({ body, ip }) => {
  await requestPasswordReset({ email: body.email, ip });
  return json(202, { accepted: true });
});
