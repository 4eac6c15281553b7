/**
 * Email verification: a link mailed at sign-up and after every change of address, opened (and confirmed with a
 * click) to mark the address verified. Login is never blocked on it (docs/api.md, "Password reset and email
 * verification"). The token is stored in the request; only the mail goes out afterwards.
 */
import { z } from "zod";
import { now } from "@/lib/clock";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { enforceRateLimit } from "@/lib/rate-limit";
import { findUserById, markEmailVerified } from "@/lib/db/queries";
import { inBackground, sendMail } from "@/lib/mail/mailer";
import { verifyEmailMail } from "@/lib/mail/messages";
import {
  EMAIL_VERIFICATION_TTL_MS,
  invalidToken,
  issueAccountToken,
  MAIL_WINDOW_MS,
  redeemAccountToken,
} from "./account-tokens";

export const verifyEmailSchema = z.strictObject({ token: z.string().min(1, "The link has no token.").max(512) });

/** Verification mails one account may ask for again per `MAIL_WINDOW_MS`. */
export const VERIFICATION_RESENDS_PER_ACCOUNT = 3;

/** Stores a fresh verification token for the user's current address and mails the link (after the answer). */
export async function sendVerificationLink(user: { id: string; email: string }) {
  const token = await issueAccountToken({
    userId: user.id,
    purpose: "email_verification",
    email: user.email,
    ttlMs: EMAIL_VERIFICATION_TTL_MS,
  });
  const link = `${env().APP_URL}/verify-email?token=${token}`;
  inBackground("verification mail", () => sendMail(verifyEmailMail({ to: user.email, link })));
}

/** Marks the address verified with a link's token; the link only counts while the address is the one it was sent to. */
export async function verifyEmail({ token, ip }: { token: string; ip: string }) {
  await enforceRateLimit({ key: `verify:ip:${ip}`, limit: env().AUTH_RATE_LIMIT });
  const row = await redeemAccountToken({ token, purpose: "email_verification" });
  const user = await markEmailVerified({ userId: row.userId, email: row.email, at: now() });
  if (!user) throw invalidToken(); // the address changed since the link was sent
  log.info("email verified", { userId: user.id });
}

export type ResendOutcome = "sent" | "already_verified";

/** A new verification link for a signed-in person, rate limited per client and per account. */
export async function resendVerification({ userId, ip }: { userId: string; ip: string }): Promise<ResendOutcome> {
  await enforceRateLimit({ key: `verify-resend:ip:${ip}`, limit: env().AUTH_RATE_LIMIT });
  await enforceRateLimit({
    key: `verify-resend:user:${userId}`,
    limit: VERIFICATION_RESENDS_PER_ACCOUNT,
    windowMs: MAIL_WINDOW_MS,
  });
  const user = await findUserById({ id: userId });
  if (!user) throw new AppError("unauthenticated", "Your session ended. Log in again to continue.");
  if (user.emailVerifiedAt) return "already_verified";
  await sendVerificationLink(user);
  return "sent";
}

/** Whether the user's current address is verified (the account page shows it). */
export async function isEmailVerified({ userId }: { userId: string }): Promise<boolean> {
  return Boolean((await findUserById({ id: userId }))?.emailVerifiedAt);
}
