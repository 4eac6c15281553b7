/**
 * "Forgot your password?": a link mailed to the account's address, then a new password set with it. Asking always
 * answers the same, whether or not the address has an account: the lookup and the mail happen after the answer
 * (lib/mail/mailer.ts, `inBackground`), so neither the answer nor its timing tells them apart. docs/api.md,
 * "Password reset and email verification".
 */
import { z } from "zod";
import { now } from "@/lib/clock";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { enforceRateLimit } from "@/lib/rate-limit";
import { findUserByEmail, replacePasswordAndSignOut } from "@/lib/db/queries";
import { inBackground, sendMail } from "@/lib/mail/mailer";
import { passwordChangedMail, passwordResetMail } from "@/lib/mail/messages";
import { emailSchema, newPasswordSchema } from "./accounts";
import {
  invalidToken,
  issueAccountToken,
  MAIL_WINDOW_MS,
  PASSWORD_RESET_TTL_MS,
  redeemAccountToken,
} from "./account-tokens";
import { hashPassword } from "./password";

export const forgotPasswordSchema = z.strictObject({ email: emailSchema });

export const resetPasswordSchema = z.strictObject({
  token: z.string().min(1, "The link has no token.").max(512),
  password: newPasswordSchema,
});

/** Reset mails one client may have sent to one address per `MAIL_WINDOW_MS`, and all clients together. */
export const RESET_MAILS_PER_ADDRESS_AND_CLIENT = 3;
export const RESET_MAILS_PER_ADDRESS = 10;

/**
 * Limits, then the answer; the mail goes out afterwards. Per client (`AUTH_RATE_LIMIT` a minute), per address and
 * client, and per address over all clients, in that order: a client refused by its own buckets never reaches the
 * address's, so one client cannot stop the owner from asking (the limits are the same for unknown addresses, so a
 * `429` tells nothing either).
 */
export async function requestPasswordReset({ email, ip }: { email: string; ip: string }) {
  const address = email.toLowerCase();
  await enforceRateLimit({ key: `forgot:ip:${ip}`, limit: env().AUTH_RATE_LIMIT });
  await enforceRateLimit({
    key: `forgot:address-ip:${address}:${ip}`,
    limit: RESET_MAILS_PER_ADDRESS_AND_CLIENT,
    windowMs: MAIL_WINDOW_MS,
  });
  await enforceRateLimit({
    key: `forgot:address:${address}`,
    limit: RESET_MAILS_PER_ADDRESS,
    windowMs: MAIL_WINDOW_MS,
  });
  inBackground("password reset mail", () => mailResetLink(address));
}

async function mailResetLink(address: string) {
  const user = await findUserByEmail({ email: address });
  if (!user) {
    log.info("password reset asked for an address without an account");
    return;
  }
  const token = await issueAccountToken({
    userId: user.id,
    purpose: "password_reset",
    email: user.emailNormalized,
    ttlMs: PASSWORD_RESET_TTL_MS,
  });
  const link = `${env().APP_URL}/reset-password?token=${token}`;
  await sendMail(passwordResetMail({ to: user.email, link }));
}

/**
 * Sets the new password with a reset link's token: the token is used up first (one statement; a used, unknown or
 * expired one costs no scrypt), then the password is replaced, every session of the user deleted and every connected
 * application (OAuth grant) disconnected, together. A notice naming those applications goes to the address afterwards.
 */
export async function resetPassword(input: { token: string; password: string; ip: string }) {
  await enforceRateLimit({ key: `reset:ip:${input.ip}`, limit: env().AUTH_RATE_LIMIT });
  const token = await redeemAccountToken({ token: input.token, purpose: "password_reset" });
  const passwordHash = await hashPassword(input.password);
  const { user, signedOut, applications } = await replacePasswordAndSignOut({
    userId: token.userId,
    passwordHash,
    mailedTo: token.email,
    at: now(),
  });
  if (!user) throw invalidToken(); // the account was deleted meanwhile
  log.info("password reset", { userId: user.id, signedOut, applicationsDisconnected: applications.length });
  inBackground("password changed mail", () =>
    sendMail(passwordChangedMail({ to: user.email, appUrl: env().APP_URL, how: "reset", applications })),
  );
}
