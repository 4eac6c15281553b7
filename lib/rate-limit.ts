/**
 * Fixed-window rate limits stored in the database, so every app instance shares the counters. Checked before any
 * expensive work (scrypt), so a flood costs us one UPDATE per request.
 */
import { AppError } from "@/lib/errors";
import { nowMs } from "@/lib/clock";
import { incrementRateLimit } from "@/lib/db/queries";

export async function enforceRateLimit({
  key,
  limit,
  windowMs = 60_000,
}: {
  key: string;
  limit: number;
  windowMs?: number;
}) {
  const now = nowMs();
  const windowStart = Math.floor(now / windowMs) * windowMs;
  const count = await incrementRateLimit({ key, windowStart });
  if (count > limit) {
    const retryAfter = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
    throw new AppError("rate_limited", `Too many attempts. Try again in ${retryAfter} seconds.`, {
      headers: { "Retry-After": String(retryAfter) },
      details: { retryAfterSeconds: retryAfter },
    });
  }
}
