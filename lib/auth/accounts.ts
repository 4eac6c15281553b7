/**
 * Sign-up and login. Route handlers and server actions both call these, so the rules live in one place.
 * Rate limits are checked before scrypt runs: hashes queue on the thread pool, so refusing early is what keeps
 * a flood from starving honest users.
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { now } from "@/lib/clock";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { enforceAccountAttemptLimits, enforceRateLimit } from "@/lib/rate-limit";
import { findUserByEmail, insertUser, updateUserPasswordHash } from "@/lib/db/queries";
import { COMMON_PASSWORDS } from "./common-passwords";
import { sendVerificationLink } from "./email-verification";
import { dummyPasswordHash, hashPassword, needsRehash, verifyPassword } from "./password";
import { toPublicUser, type PublicUser } from "./session";

const graphemeLength = (value: string) => [...value.normalize("NFKC")].length;

export const emailSchema = z
  .string()
  .trim()
  .max(254, "Email must be at most 254 characters.")
  .pipe(z.email("Enter a valid email address."));

export const newPasswordSchema = z
  .string()
  .refine((value) => graphemeLength(value) >= 15, "Password must be at least 15 characters.")
  .refine((value) => graphemeLength(value) <= 128, "Password must be at most 128 characters.")
  .refine(
    (value) => !isCommonPassword(value),
    "This password is too common: choose one that others are unlikely to use.",
  );

export const signupSchema = z.strictObject({
  email: emailSchema,
  password: newPasswordSchema,
  name: z.string().trim().max(100, "Name must be at most 100 characters.").optional(),
});

export const loginSchema = z.strictObject({
  email: z.string().trim().max(254),
  password: z.string().max(1024),
});

export function isCommonPassword(password: string): boolean {
  const lowered = password.normalize("NFKC").toLowerCase();
  if (COMMON_PASSWORDS.has(lowered)) return true;
  if (/^(.)\1+$/u.test(lowered)) return true; // one character repeated
  // A short common word or sequence repeated to reach the length rule ("passwordpassword...").
  for (let size = 1; size <= 10; size++) {
    if (lowered.length % size === 0 && lowered.slice(0, size).repeat(lowered.length / size) === lowered) return true;
  }
  return false;
}

export async function registerAccount(input: {
  email: string;
  password: string;
  name?: string;
  ip: string;
}): Promise<PublicUser> {
  const limit = env().AUTH_RATE_LIMIT;
  await enforceRateLimit({ key: `signup:ip:${input.ip}`, limit });
  // Per email too: probing which emails have accounts (409 email_taken) is as slow as guessing passwords.
  await enforceRateLimit({ key: `signup:account:${input.email.toLowerCase()}`, limit });
  const passwordHash = await hashPassword(input.password);
  const user = await insertUser({
    id: randomUUID(),
    email: input.email,
    name: input.name?.length ? input.name : null,
    passwordHash,
    createdAt: now(),
  });
  if (!user) throw new AppError("email_taken", "An account with this email already exists. Log in instead.");
  await sendVerificationLink(user);
  return toPublicUser(user);
}

const invalidCredentials = () => new AppError("invalid_credentials", "The email or password is not right.");

export async function authenticate(input: { email: string; password: string; ip: string }): Promise<PublicUser> {
  const email = input.email.toLowerCase();
  // Keyed per client and account, so one client's wrong guesses never lock the owner out (lib/rate-limit.ts).
  await enforceAccountAttemptLimits({ scope: "login", account: email, ip: input.ip, limit: env().AUTH_RATE_LIMIT });
  const user = await findUserByEmail({ email });
  if (!user) {
    // Same work, same answer: an unknown email must not be told apart from a wrong password.
    await verifyPassword(input.password, await dummyPasswordHash());
    throw invalidCredentials();
  }
  if (!(await verifyPassword(input.password, user.passwordHash))) throw invalidCredentials();
  if (needsRehash(user.passwordHash)) {
    await updateUserPasswordHash({ id: user.id, passwordHash: await hashPassword(input.password) });
  }
  return toPublicUser(user);
}
