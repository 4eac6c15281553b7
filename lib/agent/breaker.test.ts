import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { breakerSnapshot, CircuitBreaker, CircuitOpenError, resetBreakersForTests, siteBreaker } from "./breaker";

const fail = (b: CircuitBreaker, times = 1) => {
  for (let i = 0; i < times; i++) b.acquire().fail("boom");
};
const succeed = (b: CircuitBreaker, times = 1) => {
  for (let i = 0; i < times; i++) b.acquire().succeed();
};

describe("the circuit breaker", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => {
    vi.useRealTimers();
    resetBreakersForTests();
  });

  it("opens after five failures in a row and then fails fast", () => {
    const breaker = new CircuitBreaker("site a");
    fail(breaker, 4);
    expect(breaker.snapshot().state).toBe("closed");
    fail(breaker);
    expect(breaker.snapshot()).toMatchObject({
      state: "open",
      consecutiveFailures: 5,
      retryAfterMs: 30_000,
      lastFailure: "boom",
    });
    expect(() => breaker.acquire()).toThrow(CircuitOpenError);
  });

  it("opens when half of the last ten calls failed, even with no five in a row", () => {
    const breaker = new CircuitBreaker("site b");
    for (let i = 0; i < 4; i++) {
      fail(breaker);
      succeed(breaker);
    }
    expect(breaker.snapshot().state).toBe("closed"); // 4 of 8: the window is not full yet
    succeed(breaker);
    fail(breaker); // 5 of the last 10
    expect(breaker.snapshot().state).toBe("open");
  });

  it("stays closed when fewer than half of the last ten calls failed", () => {
    const breaker = new CircuitBreaker("site c");
    for (let i = 0; i < 20; i++) (i % 3 === 0 ? fail : succeed)(breaker);
    expect(breaker.snapshot().state).toBe("closed");
  });

  it("half-opens after thirty seconds with exactly one trial call, and closes when it succeeds", () => {
    const breaker = new CircuitBreaker("site d");
    fail(breaker, 5);
    vi.advanceTimersByTime(29_999);
    expect(() => breaker.acquire()).toThrow(CircuitOpenError);
    vi.advanceTimersByTime(1);
    expect(breaker.snapshot().state).toBe("half_open");
    const trial = breaker.acquire();
    expect(() => breaker.acquire()).toThrow(/tried again/); // one trial at a time
    trial.succeed();
    expect(breaker.snapshot()).toMatchObject({ state: "closed", consecutiveFailures: 0, recentCalls: 0 });
    succeed(breaker, 3);
  });

  it("reopens for another thirty seconds when the trial call fails", () => {
    const breaker = new CircuitBreaker("site e");
    fail(breaker, 5);
    vi.advanceTimersByTime(30_000);
    breaker.acquire().fail("still down");
    expect(breaker.snapshot()).toMatchObject({ state: "open", retryAfterMs: 30_000, lastFailure: "still down" });
  });

  it("lets a new trial through when the previous one was cancelled", () => {
    const breaker = new CircuitBreaker("site f");
    fail(breaker, 5);
    vi.advanceTimersByTime(30_000);
    breaker.acquire().cancel();
    expect(() => breaker.acquire().succeed()).not.toThrow();
    expect(breaker.snapshot().state).toBe("closed");
  });

  it("shows every site's and provider's breaker in one snapshot", () => {
    fail(siteBreaker("s1"), 5);
    succeed(siteBreaker("s2"));
    expect(breakerSnapshot()).toEqual({
      models: {},
      sites: {
        s1: expect.objectContaining({ state: "open" }),
        s2: expect.objectContaining({ state: "closed", recentCalls: 1 }),
      },
    });
  });
});
