/**
 * What a signed-in person can do to their own account: change name and email (a new email needs the current
 * password), change the password (the current one required; every other session signed out and every connected
 * application disconnected), sign out everywhere (the same, this session included), delete the account and its
 * data (the password required; every connected site is told to revoke Sitewright's key first). Route handlers and
 * the account page's server actions both call these. Why every application, not a chosen few: docs/security.md,
 * "Account recovery ends every door".
 */
import { z } from "zod";
import { now } from "@/lib/clock";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { inBackground, sendMail } from "@/lib/mail/mailer";
import { passwordChangedMail } from "@/lib/mail/messages";
import { enforceAccountAttemptLimits } from "@/lib/rate-limit";
import {
  deleteAccountTokensForUser,
  deleteUserAndData,
  endAccountAccess,
  findUserById,
  listSitesForUser,
  updateUserProfile,
} from "@/lib/db/queries";
import { disconnectSite } from "@/lib/sites/sites";
import { emailSchema, newPasswordSchema } from "./accounts";
import { sendVerificationLink } from "./email-verification";
import { hashPassword, verifyPassword } from "./password";
import { toPublicUser, type PublicUser } from "./session";

export const profileSchema = z.strictObject({
  email: emailSchema,
  name: z.string().trim().max(100, "Name must be at most 100 characters.").optional(),
  /** Required when `email` is not the current one. */
  currentPassword: z.string().max(1024).optional(),
});

export const changePasswordSchema = z.strictObject({
  currentPassword: z.string().min(1, "Enter your current password.").max(1024),
  newPassword: newPasswordSchema,
});

export const deleteAccountSchema = z.strictObject({
  password: z.string().min(1, "Enter your password to confirm.").max(1024),
});

const gone = () => new AppError("unauthenticated", "Your session ended. Log in again to continue.");

/**
 * The password check behind every sensitive change: rate limited like login (per client, per account and client,
 * and per account far above what one client reaches), before the same scrypt work. A wrong password is
 * `403 wrong_password`, or `401 invalid_credentials` for an email change (the contract's answer there).
 */
async function checkPassword(input: {
  userId: string;
  password: string;
  ip: string;
  wrong?: "wrong_password" | "invalid_credentials";
  field?: string;
}) {
  await enforceAccountAttemptLimits({
    scope: "password",
    account: input.userId,
    ip: input.ip,
    limit: env().AUTH_RATE_LIMIT,
  });
  const user = await findUserById({ id: input.userId });
  if (!user) throw gone();
  if (!(await verifyPassword(input.password, user.passwordHash)))
    throw new AppError(input.wrong ?? "wrong_password", "That is not your current password.", {
      details: { field: input.field ?? "password" },
    });
  return user;
}

/**
 * Name and email. A new login email needs the current password (a stolen session cannot take the account over by
 * moving its email, nor probe which emails have accounts through `409 email_taken`), and is rate limited with it.
 */
export async function updateProfile(input: {
  userId: string;
  email: string;
  name?: string;
  currentPassword?: string;
  ip: string;
}): Promise<PublicUser> {
  const current = await findUserById({ id: input.userId });
  if (!current) throw gone();
  if (input.email !== current.email) {
    if (!input.currentPassword) {
      const message = "Enter your current password to change your email.";
      throw new AppError("invalid_input", message, { details: { issues: [{ path: ["currentPassword"], message }] } });
    }
    await checkPassword({
      userId: input.userId,
      password: input.currentPassword,
      ip: input.ip,
      wrong: "invalid_credentials",
      field: "currentPassword",
    });
  }
  const user = await updateUserProfile({ id: input.userId, email: input.email, name: input.name || null });
  if (!user) throw new AppError("email_taken", "Another account already uses this email.");
  if (user.emailNormalized !== current.emailNormalized) {
    // Links mailed to the old address stop working (a reset link there must not outlive the move); the new
    // address gets its own verification link.
    await deleteAccountTokensForUser({ userId: user.id });
    await sendVerificationLink(user);
  }
  return toPublicUser(user);
}

/**
 * Sets a new password and ends every other way in, together: the other sessions and every connected application
 * (OAuth grant, its access and refresh tokens), so whoever held a session or connected a client with it is out. A
 * notice naming those applications goes to the account's address afterwards.
 */
export async function changePassword(input: {
  userId: string;
  currentPassword: string;
  newPassword: string;
  keepSessionIdHash: string;
  ip: string;
}) {
  const user = await checkPassword({
    userId: input.userId,
    password: input.currentPassword,
    ip: input.ip,
    field: "currentPassword",
  });
  const { signedOut, applications } = await endAccountAccess({
    userId: input.userId,
    now: now(),
    keepIdHash: input.keepSessionIdHash,
    passwordHash: await hashPassword(input.newPassword),
  });
  log.info("password changed", { userId: input.userId, signedOut, applicationsDisconnected: applications.length });
  inBackground("password changed mail", () =>
    sendMail(passwordChangedMail({ to: user.email, appUrl: env().APP_URL, how: "change", applications })),
  );
}

/** Ends every session of the account, this one included, and disconnects every connected application. */
export async function signOutEverywhere({ userId }: { userId: string }) {
  const { signedOut, applications } = await endAccountAccess({ userId, now: now() });
  log.info("signed out everywhere", { userId, signedOut, applicationsDisconnected: applications.length });
}

/**
 * Revokes every connection (the plugin is told when it can be reached), then deletes the user and their data: their
 * OAuth grants, codes and tokens go with the user row (`on delete cascade`), so a connected application's next call
 * and its refresh are refused.
 */
export async function deleteAccount(input: { userId: string; password: string; ip: string }) {
  await checkPassword({ userId: input.userId, password: input.password, ip: input.ip });
  for (const site of await listSitesForUser({ userId: input.userId })) {
    try {
      await disconnectSite({ userId: input.userId, siteId: site.id });
    } catch (error) {
      log.warn("could not disconnect a site while deleting the account", { siteId: site.id, error });
    }
  }
  await deleteUserAndData({ id: input.userId });
  log.info("account deleted", { userId: input.userId });
}
