/**
 * A chat turn's budget figures, shown under the turn beside a bulk job's: model steps, tool calls, tokens and wall
 * time, each beside the turn's own limit (AGENT_MAX_*), from the turn's metadata; a turn stored before its limits
 * were recorded shows none rather than figures without limits.
 */
import { describe, expect, it } from "vitest";
import { turnBudgetUse } from "./budget-use";

const limits = { maxSteps: 12, maxToolCalls: 20, maxTokens: 60_000, timeoutMs: 120_000 };

describe("a turn's budget use", () => {
  it("shows steps, tool calls, tokens and time, each of the turn's own limit", () => {
    const figures = turnBudgetUse({ stopReason: "finished", steps: 2, toolCalls: 1, tokens: 1_234, ms: 4_260, limits });
    expect(figures.map((f) => f.text)).toEqual([
      "2 of 12 model steps",
      "1 of 20 tool calls",
      "1,234 of 60,000 model tokens",
      "4.2 of 120 s",
    ]);
    expect(figures.map((f) => [f.name, f.used, f.max])).toEqual([
      ["steps", 2, 12],
      ["tool calls", 1, 20],
      ["tokens", 1_234, 60_000],
      ["time", 4_260, 120_000],
    ]);
  });

  it("caps the time at the limit, and shows nothing for a turn without recorded limits", () => {
    expect(turnBudgetUse({ steps: 12, toolCalls: 3, tokens: 10, ms: 125_000, limits }).at(-1)!.text).toBe(
      "120 of 120 s",
    );
    expect(turnBudgetUse({ stopReason: "finished", steps: 1, toolCalls: 0, tokens: 5 })).toEqual([]);
    expect(turnBudgetUse(undefined)).toEqual([]);
  });
});
