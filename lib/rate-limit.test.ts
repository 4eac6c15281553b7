/**
 * The sliding window on both stores: a burst straddling a window's edge is still refused (a fixed window let twice
 * the limit through there), Retry-After says when the next attempt would pass, and it does pass then.
 */
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { advanceClockForTests, nowMs, resetClockForTests } from "@/lib/clock";
import { STORES, useStore } from "@/lib/db/testing";
import {
  ACCOUNT_LIMIT_FACTOR,
  enforceAccountAttemptLimits,
  enforceRateLimit,
  retryAfterMs,
  slidingCount,
} from "@/lib/rate-limit";

const WINDOW = 60_000;

/** Moves the service clock to `ms` after the start of the next window (0 ≤ ms < WINDOW). */
function moveToNextWindow(ms: number) {
  const next = (Math.floor(nowMs() / WINDOW) + 1) * WINDOW;
  advanceClockForTests(next + ms - nowMs());
}

async function attempt(key: string, limit: number): Promise<number | "ok"> {
  try {
    await enforceRateLimit({ key, limit, windowMs: WINDOW });
    return "ok";
  } catch (error) {
    const retry = (error as { details?: { retryAfterSeconds?: number } }).details?.retryAfterSeconds;
    expect((error as { code?: string }).code).toBe("rate_limited");
    return retry ?? -1;
  }
}

describe("the sliding count", () => {
  it("weighs the previous window by the part of it still inside the last windowMs", () => {
    expect(slidingCount({ current: 1, previous: 4 }, 0, WINDOW)).toBe(5);
    expect(slidingCount({ current: 1, previous: 4 }, 15_000, WINDOW)).toBe(4);
    expect(slidingCount({ current: 1, previous: 4 }, 59_999, WINDOW)).toBeCloseTo(1, 3);
  });

  it("says when the next attempt would pass, in this window or the next", () => {
    // Room in this window once the previous window's 4 attempts have slid down to 1: three quarters in.
    expect(retryAfterMs({ current: 1, previous: 4 }, WINDOW * 10, WINDOW, 3)).toBe(45_000);
    // This window is full (3 of 3): in the next, its weight must fall to 2 of 3, a third of the way in.
    expect(retryAfterMs({ current: 3, previous: 0 }, WINDOW * 10 + 30_000, WINDOW, 3)).toBeCloseTo(50_000, 0);
    expect(retryAfterMs({ current: 0, previous: 0 }, 123, WINDOW, 3)).toBe(0);
  });
});

describe.each(STORES)("rate limits on %s", (kind) => {
  useStore(kind);
  afterEach(() => resetClockForTests());

  it("refuses the third of a limit of two even when the burst straddles a window's edge", async () => {
    const key = `test:${randomUUID()}`;
    moveToNextWindow(WINDOW - 5_000);
    expect(await attempt(key, 2)).toBe("ok");
    expect(await attempt(key, 2)).toBe("ok");
    moveToNextWindow(100);
    const refused = await attempt(key, 2);
    expect(refused).not.toBe("ok");
    expect(refused).toBeGreaterThanOrEqual(1);
  });

  it("lets the next attempt through once Retry-After has passed, and not a second before", async () => {
    const key = `test:${randomUUID()}`;
    moveToNextWindow(10_000);
    for (let i = 0; i < 3; i++) expect(await attempt(key, 3)).toBe("ok");
    const retry = await attempt(key, 3);
    expect(typeof retry).toBe("number");
    // The refused attempt counted too (a flood keeps being refused), so its own Retry-After is the one to honour.
    advanceClockForTests((retry as number) * 1000 - 1_500);
    expect(await attempt(key, 3)).not.toBe("ok");
    const again = await attempt(key, 3);
    advanceClockForTests((again as number) * 1000);
    expect(await attempt(key, 3)).toBe("ok");
  });

  it("keeps keys apart", async () => {
    const a = `test:${randomUUID()}`;
    const b = `test:${randomUUID()}`;
    expect(await attempt(a, 1)).toBe("ok");
    expect(await attempt(a, 1)).not.toBe("ok");
    expect(await attempt(b, 1)).toBe("ok");
  });

  it("lets one client hammer an account without exhausting it for others; only many clients together reach its limit", async () => {
    const account = `test-account-${randomUUID()}`;
    const tryFrom = async (ip: string) => {
      try {
        await enforceAccountAttemptLimits({ scope: "test", account, ip, limit: 2 });
        return "ok";
      } catch (error) {
        return (error as { code?: string }).code;
      }
    };
    moveToNextWindow(1_000);
    const hammering = [];
    for (let i = 0; i < 100; i++) hammering.push(await tryFrom("203.0.113.1"));
    expect(hammering.slice(0, 2)).toEqual(["ok", "ok"]);
    expect(new Set(hammering.slice(2))).toEqual(new Set(["rate_limited"]));
    expect(await tryFrom("198.51.100.2")).toBe("ok");
    // The account's own bucket: ACCOUNT_LIMIT_FACTOR × 2 attempts over all clients.
    const spread = [];
    for (let i = 0; i < ACCOUNT_LIMIT_FACTOR * 2; i++) spread.push(await tryFrom(`192.0.2.${i}`));
    expect(spread.filter((s) => s === "ok")).toHaveLength(ACCOUNT_LIMIT_FACTOR * 2 - 3);
    expect(spread.at(-1)).toBe("rate_limited");
  });
});
