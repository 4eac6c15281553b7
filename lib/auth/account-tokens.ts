/**
 * The tokens in links we mail (password reset, email verification): 32 random bytes, base64url in the link, only
 * their SHA-256 in the store (a fast hash is enough for 256 bits of entropy; a leaked table opens nothing). One live
 * token per user and purpose: a new one replaces the earlier. Using one deletes it in the same statement that finds
 * it, so two parallel uses cannot both succeed.
 */
import { createHash, randomBytes } from "node:crypto";
import { now } from "@/lib/clock";
import { AppError } from "@/lib/errors";
import { consumeAccountToken, replaceAccountToken } from "@/lib/db/queries";
import type { AccountToken, AccountTokenPurpose } from "@/lib/db/schema";

export const PASSWORD_RESET_TTL_MS = 30 * 60 * 1000;
export const EMAIL_VERIFICATION_TTL_MS = 24 * 60 * 60 * 1000;
/** The window over which mails to one address or account are counted (rate limits of password-reset.ts, email-verification.ts). */
export const MAIL_WINDOW_MS = 15 * 60 * 1000;

/** 32 bytes in base64url, without padding. */
const TOKEN_FORMAT = /^[A-Za-z0-9_-]{43}$/;

export const hashAccountToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** A fresh token for `userId`, valid for `ttlMs`; the user's earlier tokens of this purpose stop working. */
export async function issueAccountToken(input: {
  userId: string;
  purpose: AccountTokenPurpose;
  email: string;
  ttlMs: number;
}): Promise<string> {
  const token = randomBytes(32).toString("base64url");
  const createdAt = now();
  await replaceAccountToken({
    tokenHash: hashAccountToken(token),
    userId: input.userId,
    purpose: input.purpose,
    email: input.email.toLowerCase(),
    createdAt,
    expiresAt: new Date(createdAt.getTime() + input.ttlMs),
  });
  return token;
}

export const invalidToken = () =>
  new AppError("invalid_token", "This link is not valid, or it was already used. Ask for a new one.");

/**
 * Uses a token up: its row when it was live. A token that is unknown, used, replaced or malformed is
 * `400 invalid_token`; one past its expiry is `410 token_expired` (and is gone too).
 */
export async function redeemAccountToken({
  token,
  purpose,
}: {
  token: string;
  purpose: AccountTokenPurpose;
}): Promise<AccountToken> {
  if (!TOKEN_FORMAT.test(token)) throw invalidToken();
  const row = await consumeAccountToken({ tokenHash: hashAccountToken(token), purpose });
  if (!row) throw invalidToken();
  if (row.expiresAt <= now()) {
    throw new AppError("token_expired", "This link has expired. Ask for a new one.");
  }
  return row;
}
