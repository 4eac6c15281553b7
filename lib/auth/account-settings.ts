/**
 * What a signed-in person can do to their own account: change name and email, change the password (the current
 * one required; every other session signed out), sign out everywhere, delete the account and its data (the
 * password required; every connected site is told to revoke Sitewright's key first). Route handlers and the
 * account page's server actions both call these.
 */
import { z } from "zod";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { enforceRateLimit } from "@/lib/rate-limit";
import {
  deleteSessionsForUser,
  deleteUserAndData,
  findUserById,
  listSitesForUser,
  updateUserPasswordHash,
  updateUserProfile,
} from "@/lib/db/queries";
import { disconnectSite } from "@/lib/sites/sites";
import { emailSchema, newPasswordSchema } from "./accounts";
import { hashPassword, verifyPassword } from "./password";
import { toPublicUser, type PublicUser } from "./session";

export const profileSchema = z.strictObject({
  email: emailSchema,
  name: z.string().trim().max(100, "Name must be at most 100 characters.").optional(),
});

export const changePasswordSchema = z.strictObject({
  currentPassword: z.string().min(1, "Enter your current password.").max(1024),
  newPassword: newPasswordSchema,
});

export const deleteAccountSchema = z.strictObject({
  password: z.string().min(1, "Enter your password to confirm.").max(1024),
});

const gone = () => new AppError("unauthenticated", "Your session ended. Log in again to continue.");

/** The password check behind every sensitive change: rate limited like login, and the same scrypt work. */
async function checkPassword(userId: string, password: string) {
  await enforceRateLimit({ key: `password:account:${userId}`, limit: env().AUTH_RATE_LIMIT });
  const user = await findUserById({ id: userId });
  if (!user) throw gone();
  if (!(await verifyPassword(password, user.passwordHash)))
    throw new AppError("wrong_password", "That is not your current password.", { details: { field: "password" } });
  return user;
}

export async function updateProfile(input: { userId: string; email: string; name?: string }): Promise<PublicUser> {
  const user = await updateUserProfile({ id: input.userId, email: input.email, name: input.name || null });
  if (!user) throw new AppError("email_taken", "Another account already uses this email.");
  return toPublicUser(user);
}

/** Sets a new password and signs out every other session, so a stolen session ends with the old password. */
export async function changePassword(input: {
  userId: string;
  currentPassword: string;
  newPassword: string;
  keepSessionIdHash: string;
}) {
  await checkPassword(input.userId, input.currentPassword);
  await updateUserPasswordHash({ id: input.userId, passwordHash: await hashPassword(input.newPassword) });
  const signedOut = await deleteSessionsForUser({ userId: input.userId, keepIdHash: input.keepSessionIdHash });
  log.info("password changed", { userId: input.userId, signedOut });
}

export async function signOutEverywhere({ userId }: { userId: string }) {
  const signedOut = await deleteSessionsForUser({ userId });
  log.info("signed out everywhere", { userId, signedOut });
}

/** Revokes every connection (the plugin is told when it can be reached), then deletes the user and their data. */
export async function deleteAccount(input: { userId: string; password: string }) {
  await checkPassword(input.userId, input.password);
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
