/**
 * Waits that scale with the machine (docs/testing.md "Nothing passes on a retry"): on a quiet machine the specs wait
 * what a quiet machine needs; on a busy two-core machine, proportionally longer, up to four times. A time-out only
 * catches a hang, so a longer one costs nothing while the test passes.
 */
import os from "node:os";
import { test } from "@playwright/test";

/** A spec's time-out on a quiet machine (the config's `timeout` before scaling). */
export const QUIET_TEST_TIMEOUT = 90_000;

/**
 * How much longer than on a quiet machine to wait: the load average over the cores (the larger of the last one and
 * five minutes', as the load a run starts in is often not yet in the last minute's), at least
 * SITEWRIGHT_E2E_MIN_SLOWDOWN (scripts/test.sh sets 2: its end-to-end lane runs beside vitest, whose load rises after
 * this is read), at most 4.
 */
export function machineSlowdown(): number {
  const [one = 0, five = 0] = os.loadavg();
  const floor = Number(process.env.SITEWRIGHT_E2E_MIN_SLOWDOWN) || 1;
  return Math.min(4, Math.max(1, floor, Math.max(one, five) / os.cpus().length));
}

/**
 * Gives the running test `quietMs` on a quiet machine, scaled as its config scaled its own time-out (so a config that
 * doubles its time-outs, the sandbox runs, doubles this too). For journeys longer than one default time-out.
 */
export function allowTest(quietMs: number) {
  test.setTimeout(Math.round(quietMs * (test.info().timeout / QUIET_TEST_TIMEOUT)));
}

/** `quietMs` on a quiet machine, scaled by the machine's load now: for one wait longer than the default expect's. */
export function scaled(quietMs: number): number {
  return Math.round(quietMs * machineSlowdown());
}
