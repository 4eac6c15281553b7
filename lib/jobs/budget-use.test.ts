/**
 * A bulk job's budget figures, as the chat's job card and the queue page show them beside the job's limits: items
 * selected, model tokens spent and planning time, each "of" its limit; a job still planning counts its time so far,
 * a job that stopped planning counts what planning took, however long the review took after.
 */
import { describe, expect, it } from "vitest";
import { jobBudgetUse } from "./budget-use";

const limits = { maxItems: 500, maxTokens: 200_000, maxMinutes: 30 };
const at = (minutes: number) => new Date(Date.UTC(2026, 10, 27, 12, 0) + minutes * 60_000).toISOString();

describe("a job's budget use", () => {
  it("shows items, tokens and time so far, each beside its limit, while the job plans", () => {
    const figures = jobBudgetUse({
      status: "planning",
      selection: { count: 47 },
      progress: { tokens: 12_345 },
      limits,
      createdAt: at(0),
      updatedAt: at(2.5),
    });
    expect(figures.map((f) => f.text)).toEqual([
      "47 of 500 items",
      "12,345 of 200,000 model tokens",
      "2.5 of 30 minutes",
    ]);
    expect(figures.map((f) => [f.name, f.used, f.max])).toEqual([
      ["items", 47, 500],
      ["tokens", 12_345, 200_000],
      ["time", 150_000, 1_800_000],
    ]);
  });

  it("counts what planning took once it stopped, not the days the queue waited for review", () => {
    const figures = jobBudgetUse({
      status: "done",
      selection: { count: 150 },
      progress: { tokens: 0, planningMs: 42_000 },
      limits,
      createdAt: at(0),
      updatedAt: at(3 * 24 * 60),
    });
    expect(figures[2]).toMatchObject({ used: 42_000, text: "0.7 of 30 minutes" });
  });

  it("never shows more used than the limit (a job stopped at its time limit says so in words)", () => {
    const figures = jobBudgetUse({
      status: "failed",
      selection: { count: 3 },
      progress: { planningMs: 31 * 60_000 },
      limits,
      createdAt: at(0),
      updatedAt: at(31),
    });
    expect(figures[1]!.text).toBe("0 of 200,000 model tokens");
    expect(figures[2]!.text).toBe("30 of 30 minutes");
  });
});
