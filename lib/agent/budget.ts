/**
 * The per-run budget: model steps, tool calls (invalid ones included), tokens (usage reported per step) and wall
 * time. Whichever runs out first ends the run and is recorded as the reason; nothing here throws.
 */
import type { StopCondition, ToolSet } from "ai";
import { env } from "@/lib/env";

export type BudgetLimits = { maxSteps: number; maxToolCalls: number; maxTokens: number; timeoutMs: number };
export type StopReason = "max_steps" | "max_tool_calls" | "max_tokens" | "timeout";

export function budgetFromEnv(): BudgetLimits {
  const { AGENT_MAX_STEPS, AGENT_MAX_TOOL_CALLS, AGENT_MAX_TOKENS, AGENT_TIMEOUT_MS } = env();
  return {
    maxSteps: AGENT_MAX_STEPS,
    maxToolCalls: AGENT_MAX_TOOL_CALLS,
    maxTokens: AGENT_MAX_TOKENS,
    timeoutMs: AGENT_TIMEOUT_MS,
  };
}

const seconds = (ms: number) => (ms < 10_000 ? (ms / 1000).toFixed(1) : String(Math.round(ms / 1000)));

export class TimeBudgetExceeded extends Error {
  constructor(readonly timeoutMs: number) {
    super(`The run took longer than ${timeoutMs} ms.`);
    this.name = "TimeBudgetExceeded";
  }
}

export class RunBudget {
  steps = 0;
  toolCalls = 0;
  tokens = 0;
  stopReason?: StopReason;
  /** When the run began (the time limit counts from here). */
  readonly startedAt = Date.now();
  private readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setTimeout>;

  constructor(
    readonly limits: BudgetLimits,
    /** The client going away (the stop button) also ends the run, but is not a budget reason. */
    outer?: AbortSignal,
  ) {
    this.timer = setTimeout(() => {
      this.stop("timeout");
      this.controller.abort(new TimeBudgetExceeded(limits.timeoutMs));
    }, limits.timeoutMs);
    if (outer) {
      if (outer.aborted) this.controller.abort(outer.reason);
      else outer.addEventListener("abort", () => this.controller.abort(outer.reason), { once: true });
    }
  }

  /** Aborts the model call and tool calls when the wall time runs out or the client leaves. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  stop(reason: StopReason) {
    this.stopReason ??= reason;
  }

  /** Counts one tool call; false (and the run ends after this step) when it is over the limit. */
  takeToolCall(): boolean {
    this.toolCalls += 1;
    if (this.toolCalls > this.limits.maxToolCalls) {
      this.stop("max_tool_calls");
      return false;
    }
    return true;
  }

  /** Invalid tool calls never reach `execute` but still count. */
  countInvalidToolCalls(count: number) {
    if (count <= 0) return;
    this.toolCalls += count;
    if (this.toolCalls > this.limits.maxToolCalls) this.stop("max_tool_calls");
  }

  addStep(tokens: number | undefined) {
    this.steps += 1;
    this.tokens += tokens ?? 0;
    if (this.tokens >= this.limits.maxTokens) this.stop("max_tokens");
  }

  /**
   * For streamText's `stopWhen` (checked after each step that ran tools): stop at the step limit or once any
   * other limit was hit.
   */
  stopCondition<TOOLS extends ToolSet>(): StopCondition<TOOLS> {
    return ({ steps }) => {
      if (this.stopReason) return true;
      if (steps.length >= this.limits.maxSteps) {
        this.stop("max_steps");
        return true;
      }
      return false;
    };
  }

  /** Wall time spent so far, in ms. */
  get elapsedMs(): number {
    return Date.now() - this.startedAt;
  }

  get timedOut(): boolean {
    return this.stopReason === "timeout";
  }

  dispose() {
    clearTimeout(this.timer);
  }

  describe(): string {
    switch (this.stopReason) {
      case "max_steps":
        return `the step limit (${this.limits.maxSteps} model steps) was reached`;
      case "max_tool_calls":
        return `the tool call limit (${this.limits.maxToolCalls} calls) was reached`;
      case "max_tokens":
        return `the token limit (${this.limits.maxTokens} tokens) was reached`;
      case "timeout":
        return `the time limit (${seconds(this.limits.timeoutMs)} s) was reached`;
      default:
        return "the run ended";
    }
  }
}
