import { resendVerification } from "@/lib/auth/email-verification";
import { json, route } from "@/lib/http/route";

/** A new verification link to the signed-in person's address (nothing is sent once it is verified). */
export const POST = route({ auth: "session" }, async ({ ip, session }) =>
  json(202, { status: await resendVerification({ userId: session.userId, ip }) }),
);
