/**
 * The pool's and the spares' fill: one run at a time, and a request made during a run is never lost (it runs once
 * more after it). Before, a request during a run got that run's promise: a member taken after the run's last count
 * stayed missing (the bench's pool sat one short for ten minutes).
 */
import { describe, expect, it } from "vitest";
import { SerialFill } from "./serial-fill";

/** A fill whose runs the test ends by hand; it counts the runs and how many overlap. */
function manualFill() {
  const ends: Array<() => void> = [];
  const state = { runs: 0, running: 0, mostAtOnce: 0 };
  const fill = new SerialFill(async () => {
    state.runs++;
    state.running++;
    state.mostAtOnce = Math.max(state.mostAtOnce, state.running);
    await new Promise<void>((resolve) => ends.push(resolve));
    state.running--;
  });
  const endRun = async () => {
    while (ends.length === 0) await new Promise((resolve) => setImmediate(resolve));
    ends.shift()!();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { fill, state, endRun };
}

describe("a serial fill", () => {
  it("runs once more after the current run when asked during it, and never two at once", async () => {
    const { fill, state, endRun } = manualFill();
    const first = fill.request();
    const during = fill.request();
    expect(during).not.toBe(first);
    await endRun();
    await first;
    expect(state.runs).toBe(2);
    await endRun();
    await during;
    expect(state.runs).toBe(2);
    expect(state.mostAtOnce).toBe(1);
  });

  it("gives every request during one run the same second run", async () => {
    const { fill, state, endRun } = manualFill();
    void fill.request();
    const a = fill.request();
    const b = fill.request();
    expect(b).toBe(a);
    await endRun();
    await endRun();
    await Promise.all([a, b]);
    expect(state.runs).toBe(2);
  });

  it("runs once when nobody asks during it, and runs again when asked after it", async () => {
    const { fill, state, endRun } = manualFill();
    const first = fill.request();
    await endRun();
    await first;
    expect(state.runs).toBe(1);
    const later = fill.request();
    await endRun();
    await later;
    expect(state.runs).toBe(2);
  });

  it("runs the second time even when the first run failed, and waits for both when settling", async () => {
    let runs = 0;
    const fill = new SerialFill(async () => {
      runs++;
      if (runs === 1) throw new Error("the engine went away");
    });
    const first = fill.request();
    const during = fill.request();
    await expect(first).rejects.toThrow("the engine went away");
    await fill.settled();
    await during;
    expect(runs).toBe(2);
  });
});
