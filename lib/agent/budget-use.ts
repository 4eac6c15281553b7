/**
 * A chat turn's budget use in figures, beside its limits (AGENT_MAX_STEPS, AGENT_MAX_TOOL_CALLS, AGENT_MAX_TOKENS,
 * AGENT_TIMEOUT_MS; lib/agent/budget.ts), from the turn's metadata. Client-safe (type imports only): the chat shows
 * them under the turn, beside a bulk job's own budget when the turn started one (lib/jobs/budget-use.ts).
 */
import type { TurnMetadata } from "./chat-message";

export type TurnBudgetFigure = { name: string; used: number; max: number; text: string };

const number = (n: number) => n.toLocaleString("en-US");
const seconds = (ms: number) => (ms < 10_000 ? (Math.floor(ms / 100) / 10).toFixed(1) : String(Math.floor(ms / 1000)));

/** The turn's figures, or none for a turn stored before its limits were recorded. */
export function turnBudgetUse(metadata: Partial<TurnMetadata> | undefined): TurnBudgetFigure[] {
  const limits = metadata?.limits;
  if (!limits) return [];
  const steps = metadata.steps ?? 0;
  const calls = metadata.toolCalls ?? 0;
  const tokens = metadata.tokens ?? 0;
  const ms = Math.min(metadata.ms ?? 0, limits.timeoutMs);
  return [
    {
      name: "steps",
      used: steps,
      max: limits.maxSteps,
      text: `${number(steps)} of ${number(limits.maxSteps)} model steps`,
    },
    {
      name: "tool calls",
      used: calls,
      max: limits.maxToolCalls,
      text: `${number(calls)} of ${number(limits.maxToolCalls)} tool calls`,
    },
    {
      name: "tokens",
      used: tokens,
      max: limits.maxTokens,
      text: `${number(tokens)} of ${number(limits.maxTokens)} model tokens`,
    },
    { name: "time", used: ms, max: limits.timeoutMs, text: `${seconds(ms)} of ${seconds(limits.timeoutMs)} s` },
  ];
}
