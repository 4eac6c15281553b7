/**
 * The one provider module: the language model comes from here and nowhere else. Any endpoint speaking OpenAI's
 * Chat Completions API (OpenAI, vLLM, Ollama, LiteLLM...) through `@ai-sdk/openai`'s `.chat()` model; tests swap in
 * a mock with `setAgentModelForTests`. Every model is wrapped in the provider's circuit breaker.
 */
import { createOpenAI } from "@ai-sdk/openai";
import { wrapLanguageModel, type LanguageModelMiddleware } from "ai";
import { env } from "@/lib/env";
import { CircuitOpenError, modelBreaker, type CircuitBreaker } from "./breaker";
import { visionMiddleware } from "./vision";

export type ModelV3 = Parameters<typeof wrapLanguageModel>[0]["model"];

export type AgentModel = {
  model: ModelV3;
  /** Names the provider's breaker: the endpoint, not the key. */
  provider: string;
  breaker: CircuitBreaker;
};

type Override = { model: ModelV3 | null; provider: string };
let override: Override | undefined;

/** Tests: a mock model (or `null` for "not configured"); `undefined` goes back to the environment. */
export function setAgentModelForTests(model: ModelV3 | null | undefined, provider = "test") {
  override = model === undefined ? undefined : { model, provider };
}

/** True when a model is configured; checked before any work so an unconfigured agent answers 503 at once. */
export function isAgentConfigured(): boolean {
  if (override) return override.model !== null;
  return Boolean(env().OPENAI_API_KEY);
}

let cached: { key: string; agentModel: AgentModel } | undefined;

/** The configured model behind its breaker, or null when no model is configured. */
export function agentModel(): AgentModel | null {
  if (override) {
    if (!override.model) return null;
    const breaker = modelBreaker(override.provider);
    return { model: withBreaker(override.model, breaker), provider: override.provider, breaker };
  }
  const { OPENAI_API_KEY, OPENAI_BASE_URL, AGENT_MODEL } = env();
  if (!OPENAI_API_KEY) return null;
  const provider = OPENAI_BASE_URL ?? "https://api.openai.com/v1";
  const key = `${provider}|${AGENT_MODEL}|${OPENAI_API_KEY}`;
  if (cached?.key !== key) {
    const openai = createOpenAI({ apiKey: OPENAI_API_KEY, baseURL: OPENAI_BASE_URL, name: "openai-compatible" });
    const breaker = modelBreaker(provider);
    cached = { key, agentModel: { model: withBreaker(openai.chat(AGENT_MODEL), breaker), provider, breaker } };
  }
  return cached.agentModel;
}

const describeError = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 200);

/**
 * Counts each model call in the provider's breaker: a call that throws, or whose stream carries an error part,
 * is a failure; a stream that reaches its finish part is a success. An open breaker fails the call at once.
 */
function withBreaker(model: ModelV3, breaker: CircuitBreaker): ModelV3 {
  const middleware: LanguageModelMiddleware = {
    specificationVersion: "v3",
    async wrapStream({ doStream, params }) {
      const permit = breaker.acquire(); // throws CircuitOpenError while open
      // A call we aborted (the budget's time limit, the stop button) says nothing about the provider's health.
      const settleFailure = (error: unknown) =>
        params.abortSignal?.aborted ? permit.cancel() : permit.fail(describeError(error));
      let result: Awaited<ReturnType<typeof doStream>>;
      try {
        result = await doStream();
      } catch (error) {
        settleFailure(error);
        throw error;
      }
      let failed = false;
      const observed = result.stream.pipeThrough(
        new TransformStream({
          transform(part, controller) {
            if (part.type === "error" && !failed) {
              failed = true;
              settleFailure(part.error);
            }
            controller.enqueue(part);
          },
          flush() {
            if (!failed) permit.succeed();
          },
          // @ts-expect-error `cancel` on transformers is newer than the DOM typings
          cancel() {
            permit.cancel();
          },
        }),
      );
      return { ...result, stream: observed };
    },
    async wrapGenerate({ doGenerate, params }) {
      const permit = breaker.acquire();
      try {
        const result = await doGenerate();
        permit.succeed();
        return result;
      } catch (error) {
        if (params.abortSignal?.aborted) permit.cancel();
        else permit.fail(describeError(error));
        throw error;
      }
    },
  };
  // Images a tool looked at reach the model as Chat Completions takes them (lib/agent/vision.ts).
  return wrapLanguageModel({ model, middleware: [visionMiddleware, middleware] });
}

export { CircuitOpenError };
