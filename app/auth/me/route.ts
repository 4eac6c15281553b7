import { deleteAccount, deleteAccountSchema, profileSchema, updateProfile } from "@/lib/auth/account-settings";
import { isEmailVerified } from "@/lib/auth/email-verification";
import { clearedSessionCookie } from "@/lib/auth/session";
import { json, noContent, route } from "@/lib/http/route";

/** The user, and whether their address is verified (`emailVerified`, beside the contract's fields). */
export const GET = route({ auth: "session" }, async ({ session }) =>
  json(200, { user: { ...session.user, emailVerified: await isEmailVerified({ userId: session.userId }) } }),
);

/** Name and email; a new email needs `currentPassword`. */
export const PATCH = route({ auth: "session", body: profileSchema }, async ({ body, ip, session }) =>
  json(200, { user: await updateProfile({ userId: session.userId, ...body, ip }) }),
);

/** Deletes the account and everything in it; the password confirms it. */
export const DELETE = route(
  { auth: "session", body: deleteAccountSchema },
  async ({ body, ip, session, setCookie }) => {
    await deleteAccount({ userId: session.userId, password: body.password, ip });
    setCookie(clearedSessionCookie());
    return noContent();
  },
);
