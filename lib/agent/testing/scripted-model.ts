/**
 * A scripted language model for tests and the benchmark (the only fake the project allows): each model call
 * answers with the next scripted step — some text, some tool calls, or both — with usage so budgets count.
 */
import { simulateReadableStream } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import type { ModelV3 } from "../model";

export type ScriptedCall = { name: string; input: unknown; id?: string };
export type ScriptedStep = {
  text?: string;
  toolCalls?: ScriptedCall[];
  tokens?: number;
  error?: unknown;
  delayMs?: number;
};
type Prompt = Parameters<ModelV3["doStream"]>[0]["prompt"];
/** A step, or a function of the prompt so far (to react to tool results). */
export type Script = Array<ScriptedStep | ((prompt: Prompt, call: number) => ScriptedStep | Promise<ScriptedStep>)>;

let ids = 0;

function chunks(step: ScriptedStep) {
  const usage = {
    inputTokens: { total: step.tokens ?? 10, noCache: step.tokens ?? 10, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 0, text: 0, reasoning: undefined },
  };
  const out: unknown[] = [{ type: "stream-start", warnings: [] }];
  if (step.text) {
    out.push(
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: step.text },
      { type: "text-end", id: "t" },
    );
  }
  for (const call of step.toolCalls ?? []) {
    out.push({
      type: "tool-call",
      toolCallId: call.id ?? `call_${++ids}`,
      toolName: call.name,
      input: JSON.stringify(call.input),
    });
  }
  if (step.error !== undefined) out.push({ type: "error", error: step.error });
  out.push({
    type: "finish",
    finishReason: { unified: step.toolCalls?.length ? "tool-calls" : "stop", raw: undefined },
    usage,
  });
  return out;
}

/** Plays `script` one step per model call; after the script ends it repeats the last step. */
export function scriptedModel(script: Script, options: { chunkDelayMs?: number | null } = {}) {
  let call = 0;
  const model = new MockLanguageModelV3({
    doStream: async ({ prompt, abortSignal }) => {
      const entry = script[Math.min(call, script.length - 1)]!;
      const step = typeof entry === "function" ? await entry(prompt, call) : entry;
      call += 1;
      // Like a real provider call, a wait ends with an AbortError when the call is aborted.
      if (step.delayMs) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, step.delayMs);
          abortSignal?.addEventListener("abort", () => {
            clearTimeout(timer);
            reject(new DOMException("The operation was aborted.", "AbortError"));
          });
        });
      }
      return {
        stream: simulateReadableStream({
          chunks: chunks(step) as never[],
          initialDelayInMs: null,
          chunkDelayInMs: options.chunkDelayMs ?? null,
        }),
      };
    },
  });
  return Object.assign(model, { calls: () => call });
}

/** A model whose every call fails as a provider error would. */
export function failingModel(error: unknown = new Error("provider down")) {
  return new MockLanguageModelV3({
    doStream: async () => {
      throw error;
    },
  });
}

/** The tool results the model has been shown so far (as JSON values), newest last. */
export function toolResults(prompt: Prompt): Array<{ toolName: string; output: unknown }> {
  const results: Array<{ toolName: string; output: unknown }> = [];
  for (const message of prompt) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type === "tool-result") {
        const output = part.output as { type: string; value?: unknown };
        results.push({ toolName: part.toolName, output: output.value });
      }
    }
  }
  return results;
}
