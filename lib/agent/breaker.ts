/**
 * Circuit breakers: one per site and one per model provider. A breaker opens after 5 failures in a row or when
 * at least half of the last 10 calls failed; while open, calls fail fast without touching the site or the
 * provider; after 30 s it half-opens and lets exactly one trial call through, whose outcome closes or reopens it.
 */
import { nowMs } from "@/lib/clock";
import { log } from "@/lib/log";
import { processState } from "@/lib/process-state";

export type BreakerState = "closed" | "open" | "half_open";

export type BreakerOptions = {
  consecutiveFailures: number;
  window: number;
  failureRate: number;
  cooldownMs: number;
};

export const DEFAULT_BREAKER_OPTIONS: BreakerOptions = {
  consecutiveFailures: 5,
  window: 10,
  failureRate: 0.5,
  cooldownMs: 30_000,
};

export type BreakerSnapshot = {
  state: BreakerState;
  consecutiveFailures: number;
  recentFailures: number;
  recentCalls: number;
  openedAt?: string;
  retryAfterMs?: number;
  lastFailure?: string;
};

/** A permission to make one call; report how it went exactly once. */
export type Permit = { succeed(): void; fail(reason?: string): void; cancel(): void };

export class CircuitOpenError extends Error {
  constructor(
    readonly breaker: string,
    readonly retryAfterMs: number,
  ) {
    super(
      `${breaker} is paused after repeated failures; it will be tried again in ${Math.ceil(retryAfterMs / 1000)} s.`,
    );
    this.name = "CircuitOpenError";
  }
}

export class CircuitBreaker {
  private state: BreakerState = "closed";
  private outcomes: boolean[] = []; // true = failure, last `window` calls
  private consecutive = 0;
  private openedAt = 0;
  private trialInFlight = false;
  private lastFailure?: string;

  constructor(
    readonly name: string,
    private readonly options: BreakerOptions = DEFAULT_BREAKER_OPTIONS,
    private readonly clock: () => number = nowMs,
  ) {}

  /** A permit to call, or a CircuitOpenError saying when to come back. Never both. */
  acquire(): Permit {
    if (this.state === "open") {
      const waited = this.clock() - this.openedAt;
      if (waited < this.options.cooldownMs) throw new CircuitOpenError(this.name, this.options.cooldownMs - waited);
      this.transition("half_open");
    }
    if (this.state === "half_open") {
      if (this.trialInFlight) throw new CircuitOpenError(this.name, 1000);
      this.trialInFlight = true;
      return this.permit(true);
    }
    return this.permit(false);
  }

  private permit(trial: boolean): Permit {
    let settled = false;
    const settle = (outcome: "success" | "failure" | "cancel", reason?: string) => {
      if (settled) return;
      settled = true;
      if (trial) this.trialInFlight = false;
      if (outcome === "success") this.recordSuccess(trial);
      else if (outcome === "failure") this.recordFailure(trial, reason);
    };
    return {
      succeed: () => settle("success"),
      fail: (reason) => settle("failure", reason),
      cancel: () => settle("cancel"),
    };
  }

  private record(failed: boolean) {
    this.outcomes.push(failed);
    if (this.outcomes.length > this.options.window) this.outcomes.shift();
  }

  private recordSuccess(trial: boolean) {
    this.consecutive = 0;
    if (trial || this.state !== "closed") {
      this.outcomes = [];
      this.transition("closed");
      return;
    }
    this.record(false);
  }

  private recordFailure(trial: boolean, reason?: string) {
    this.lastFailure = reason;
    this.consecutive += 1;
    if (trial || this.state === "half_open") {
      this.open();
      return;
    }
    if (this.state !== "closed") return; // a late answer from before the breaker opened
    this.record(true);
    const failures = this.outcomes.filter(Boolean).length;
    const windowFull = this.outcomes.length >= this.options.window;
    if (
      this.consecutive >= this.options.consecutiveFailures ||
      (windowFull && failures / this.outcomes.length >= this.options.failureRate)
    ) {
      this.open();
    }
  }

  private open() {
    this.openedAt = this.clock();
    this.transition("open");
  }

  private transition(next: BreakerState) {
    if (next === this.state) return;
    const previous = this.state;
    this.state = next;
    const fields = { breaker: this.name, from: previous, to: next, lastFailure: this.lastFailure };
    if (next === "open") log.warn("circuit breaker opened", fields);
    else log.info("circuit breaker changed state", fields);
  }

  snapshot(): BreakerSnapshot {
    const snapshot: BreakerSnapshot = {
      state:
        this.state === "open" && this.clock() - this.openedAt >= this.options.cooldownMs ? "half_open" : this.state,
      consecutiveFailures: this.consecutive,
      recentFailures: this.outcomes.filter(Boolean).length,
      recentCalls: this.outcomes.length,
    };
    if (this.state !== "closed") snapshot.openedAt = new Date(this.openedAt).toISOString();
    if (this.state === "open")
      snapshot.retryAfterMs = Math.max(0, this.options.cooldownMs - (this.clock() - this.openedAt));
    if (this.lastFailure) snapshot.lastFailure = this.lastFailure;
    return snapshot;
  }
}

type Registry = { sites: Map<string, CircuitBreaker>; models: Map<string, CircuitBreaker> };
const registry: Registry = processState<Registry>("breakers", () => ({
  sites: new Map(),
  models: new Map(),
}));

export function siteBreaker(siteId: string): CircuitBreaker {
  const existing = registry.sites.get(siteId);
  if (existing) return existing;
  const breaker = new CircuitBreaker(`site ${siteId}`);
  registry.sites.set(siteId, breaker);
  return breaker;
}

export function modelBreaker(provider: string): CircuitBreaker {
  const existing = registry.models.get(provider);
  if (existing) return existing;
  const breaker = new CircuitBreaker(`model provider ${provider}`);
  registry.models.set(provider, breaker);
  return breaker;
}

/** Every breaker's state, for /health details (in-memory, cheap). */
export function breakerSnapshot(): { models: Record<string, BreakerSnapshot>; sites: Record<string, BreakerSnapshot> } {
  return {
    models: Object.fromEntries([...registry.models].map(([key, breaker]) => [key, breaker.snapshot()])),
    sites: Object.fromEntries([...registry.sites].map(([key, breaker]) => [key, breaker.snapshot()])),
  };
}

/**
 * What /health shows, which anyone may read: each model provider's state, and for sites only how many breakers are
 * in each state (site ids are not for strangers).
 */
export function breakerSummary() {
  const { models, sites } = breakerSnapshot();
  const siteCounts: Record<string, number> = { closed: 0, open: 0, half_open: 0 };
  for (const snapshot of Object.values(sites)) siteCounts[snapshot.state] = (siteCounts[snapshot.state] ?? 0) + 1;
  return {
    models: Object.fromEntries(Object.entries(models).map(([key, snapshot]) => [key, snapshot.state])),
    sites: siteCounts,
  };
}

export function resetBreakersForTests() {
  registry.sites.clear();
  registry.models.clear();
}
