/**
 * Sliding-window rate limits stored in the database, so every app instance shares the counters. Checked before any
 * expensive work (scrypt), so a flood costs us one statement per request.
 *
 * Each key counts attempts in fixed windows; an attempt is judged on the current window's count plus the previous
 * window's count weighted by how much of it still lies inside the last `windowMs` (the approximation Cloudflare and
 * nginx use). A fixed window alone lets twice the limit through around a window's edge, and makes a test that
 * straddles the edge see its counter reset.
 */
import { AppError } from "@/lib/errors";
import { nowMs } from "@/lib/clock";
import { incrementRateLimit, incrementRateLimitChain } from "@/lib/db/queries";

export type WindowCounts = { current: number; previous: number };

/** The weighted count an attempt at `at` is judged on; `counts.current` already includes that attempt. */
export function slidingCount(counts: WindowCounts, at: number, windowMs: number): number {
  const elapsed = (at % windowMs) / windowMs;
  return counts.current + counts.previous * (1 - elapsed);
}

/**
 * Milliseconds from `at` until one more attempt would be allowed, if nobody tries in between: later in this window
 * once enough of the previous one has slid out, or else in the next window once enough of this one has.
 */
export function retryAfterMs(counts: WindowCounts, at: number, windowMs: number, limit: number): number {
  const windowStart = Math.floor(at / windowMs) * windowMs;
  const roomNow = limit - counts.current - 1;
  if (roomNow >= 0) {
    // Only the previous window's weight is in the way: wait until it has shrunk to the room left.
    const fraction = counts.previous > 0 ? Math.max(0, 1 - roomNow / counts.previous) : 0;
    return Math.max(0, windowStart + fraction * windowMs - at);
  }
  // This window is full: in the next one, this window becomes the previous and must shrink to limit - 1.
  const fraction = counts.current > 0 ? Math.max(0, 1 - (limit - 1) / counts.current) : 0;
  return Math.max(0, windowStart + windowMs + fraction * windowMs - at);
}

function refuseOverLimit(counts: WindowCounts, at: number, windowMs: number, limit: number, refused = false) {
  if (!refused && slidingCount(counts, at, windowMs) <= limit) return;
  const retryAfter = Math.max(1, Math.ceil(retryAfterMs(counts, at, windowMs, limit) / 1000));
  throw new AppError("rate_limited", `Too many attempts. Try again in ${retryAfter} seconds.`, {
    headers: { "Retry-After": String(retryAfter) },
    details: { retryAfterSeconds: retryAfter },
  });
}

export async function enforceRateLimit({
  key,
  limit,
  windowMs = 60_000,
}: {
  key: string;
  limit: number;
  windowMs?: number;
}) {
  const at = nowMs();
  const windowStart = Math.floor(at / windowMs) * windowMs;
  const counts = await incrementRateLimit({ key, windowStart, previousWindowStart: windowStart - windowMs });
  refuseOverLimit(counts, at, windowMs, limit);
}

/**
 * Several limits on one attempt, checked in order as consecutive `enforceRateLimit` calls would be (an attempt a
 * bucket refuses is not counted in the buckets after it), in one database round trip.
 */
export async function enforceRateLimits(buckets: Array<{ key: string; limit: number }>, windowMs = 60_000) {
  const at = nowMs();
  const windowStart = Math.floor(at / windowMs) * windowMs;
  const previousWeight = 1 - (at % windowMs) / windowMs; // slidingCount's weight, so both sides judge alike
  const counts = await incrementRateLimitChain({
    buckets,
    windowStart,
    previousWindowStart: windowStart - windowMs,
    previousWeight,
  });
  buckets.forEach(({ limit }, i) => {
    // A bucket the attempt never reached (current 0): the one before refused it, whatever rounding says.
    const refusedBefore = i + 1 < buckets.length && counts[i + 1]!.current === 0;
    refuseOverLimit(counts[i]!, at, windowMs, limit, refusedBefore);
  });
}

/**
 * How many times one client's limit an account's limit over all clients is. One client is held to `limit` by its
 * own buckets and its refused attempts never reach the account's, so it cannot exhaust it: only many addresses
 * guessing together can, and then slowing the guessing for everyone is the point (docs/api.md, "Rate limits").
 */
export const ACCOUNT_LIMIT_FACTOR = 10;

/**
 * Attempts at one account's password (login, or the check before a sensitive change): `limit` per client address
 * over all accounts, `limit` per account and client, and ACCOUNT_LIMIT_FACTOR × `limit` per account over all
 * clients. Checked in that order, so an attempt a client's own bucket refuses does not count against the account.
 */
export async function enforceAccountAttemptLimits({
  scope,
  account,
  ip,
  limit,
}: {
  scope: string;
  account: string;
  ip: string;
  limit: number;
}) {
  await enforceRateLimits([
    { key: `${scope}:ip:${ip}`, limit },
    { key: `${scope}:account-ip:${account}:${ip}`, limit },
    { key: `${scope}:account:${account}`, limit: limit * ACCOUNT_LIMIT_FACTOR },
  ]);
}
