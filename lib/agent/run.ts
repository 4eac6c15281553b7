/**
 * One turn of the agent loop, as an AI SDK UI message stream: `streamText` with the run's tools and budget, the
 * first bytes written before the model is even called, a closing message whenever the run is cut short, and
 * the conversation saved when the turn ends (before the stream's last chunk, so the next request sees it).
 */
import { randomUUID } from "node:crypto";
import {
  APICallError,
  convertToModelMessages,
  createUIMessageStream,
  InvalidToolInputError,
  NoSuchToolError,
  readUIMessageStream,
  RetryError,
  streamText,
  type StepResult,
  type ToolSet,
  type InferUIMessageChunk,
} from "ai";
import { now } from "@/lib/clock";
import { findChangeSetForTurn, saveMessages } from "@/lib/db/queries";
import { log } from "@/lib/log";
import type { SiteClient } from "@/lib/sites/types";
import { CircuitOpenError, siteBreaker } from "./breaker";
import { RunBudget, TimeBudgetExceeded, type BudgetLimits } from "./budget";
import type { ChatMessage, JobPart, TurnMetadata } from "./chat-message";
import { dataPartForModel } from "./attachments";
import type { AgentModel } from "./model";
import { ALL_OPERATIONS, sdkInputSchema, type Operation } from "./operations";
import { type NotVisible, systemPrompt, type PromptSite } from "./prompt";
import { auditInvalidCall, buildTools, type RunState, type ToolContext, type ToolOutcome } from "./tools";
import { wrapForModel } from "./untrusted";
import type { WriteContext } from "./writes";

export type { TurnMetadata };

export type { ChatMessage };
type Chunk = InferUIMessageChunk<ChatMessage>;

export type TurnInput = {
  userId: string;
  site: PromptSite & { id: string };
  conversationId: string;
  /** The stored conversation with this turn's input applied: a new user message, or answered approvals. */
  history: ChatMessage[];
  operations: readonly Operation[];
  /** Operations held back only by a scope the owner has not granted: offered locked (lib/agent/tools.ts). */
  locked?: readonly Operation[];
  /** The conversation's sandbox copy was gone and this turn made a fresh one: the model tells the owner. */
  freshCopy?: "vanished";
  /** Re-reads the token's scopes: the names of the operations allowed now (once per run, after a refusal). */
  regrant?: ToolContext["regrant"];
  client: SiteClient;
  model: AgentModel;
  limits: BudgetLimits;
  approvedToolCalls?: ReadonlySet<string>;
  /** Set when content read earlier in the conversation tried to address the assistant. */
  flagged?: string;
  /** The request's signal: the stop button (the client going away) ends the run. */
  signal?: AbortSignal;
  /** Sandbox mode: `client` reaches this sandbox, and the turn's change set waits for Apply (docs/rehearsal.md). */
  sandboxId?: string;
  /** The turn's last live write was not found on the live site (docs/verification.md): the model says so. */
  notVisible?: NotVisible;
  /** Called after an approved write lands on the live site (the look at the live site: docs/verification.md). */
  afterLiveWrite?: WriteContext["afterLiveWrite"];
  /** Starts a bulk job for the turn (on the live site, or in the turn's sandbox in sandbox mode). */
  startJob?: ToolContext["startJob"];
};

/** Converts stored history for the model: tool results from the site always reach it wrapped as untrusted. */
const historyTools: ToolSet = Object.fromEntries(
  ALL_OPERATIONS.map((op) => [
    op.name,
    {
      inputSchema: sdkInputSchema(op),
      toModelOutput: ({ output }: { output: unknown }) => ({ type: "json", value: wrapForModel(output) }),
    },
  ]),
) as ToolSet;

/** What the chat shows for a stream error: a sentence, never internals. */
export function describeStreamError(error: unknown): string {
  if (error instanceof CircuitOpenError) {
    return `The AI model failed several times in a row, so Sitewright paused calls to it. Try again in ${Math.ceil(error.retryAfterMs / 1000)} s.`;
  }
  // The SDK retries a failed model call and then reports the retries; what the user needs is the last answer.
  if (RetryError.isInstance(error)) return describeStreamError(error.lastError);
  if (NoSuchToolError.isInstance(error))
    return `The assistant asked for a tool it is not allowed to use (${error.toolName}); it was refused.`;
  if (InvalidToolInputError.isInstance(error))
    return `The assistant called ${error.toolName} with invalid arguments; it was refused.`;
  if (APICallError.isInstance(error)) {
    return error.statusCode === 401 || error.statusCode === 403
      ? "The AI model provider refused Sitewright's key. The operator needs to check the model configuration."
      : `The AI model provider answered with an error${error.statusCode ? ` (HTTP ${error.statusCode})` : ""}. Try again in a moment.`;
  }
  if (error instanceof TimeBudgetExceeded) return "The run took too long and was stopped.";
  log.error("agent stream error", { error });
  return "The assistant stopped because of an unexpected error. Try again.";
}

function closingText(
  budget: RunBudget,
  outcomes: ToolOutcome[],
  reason: TurnMetadata["stopReason"],
): string | undefined {
  if (reason === "finished" || reason === "aborted") return undefined;
  const changed = outcomes.filter((o) => o.ok && o.risk !== "read");
  const notDone = outcomes.filter((o) => !o.ok);
  const lines = [
    reason === "error" ? "I could not finish this request." : `I stopped here because ${budget.describe()}.`,
  ];
  lines.push(
    changed.length > 0
      ? `Done on the site:\n${changed.map((o) => `- ${o.summary}`).join("\n")}`
      : "Nothing was changed on the site.",
  );
  if (notDone.length > 0) lines.push(`Not done:\n${notDone.map((o) => `- ${o.operation}: ${o.summary}`).join("\n")}`);
  lines.push("Anything else you asked for was not done yet. Send a message to continue.");
  return lines.join("\n\n");
}

type Emit = (chunk: Chunk) => void;
type TurnWriter = { write: (chunk: Chunk) => void };

/**
 * Our own copy of the response message, so saving does not depend on the client staying connected: every chunk
 * emitted goes to the client and to this copy; `finish` closes the copy and returns the message it built.
 */
function responseCollector(writer: TurnWriter, continued: ChatMessage | undefined) {
  let collect!: ReadableStreamDefaultController<Chunk>;
  const collected = new ReadableStream<Chunk>({
    start: (controller) => {
      collect = controller;
    },
  });
  const finalMessage = (async () => {
    let latest: ChatMessage | undefined;
    for await (const message of readUIMessageStream<ChatMessage>({
      message: continued ? structuredClone(continued) : undefined,
      stream: collected,
    })) {
      latest = message;
    }
    return latest;
  })();
  const emit: Emit = (chunk) => {
    writer.write(chunk);
    collect.enqueue(chunk);
  };
  const finish = (metadata: TurnMetadata): Promise<ChatMessage | undefined> => {
    collect.enqueue({ type: "finish", messageMetadata: metadata });
    collect.close();
    return finalMessage;
  };
  return { emit, finish };
}

/** What the tools of this turn work with: the site, the budget, the run's state and where writes go. */
function toolContext(input: TurnInput, messageId: string, budget: RunBudget, state: RunState, emit: Emit): ToolContext {
  return {
    userId: input.userId,
    siteId: input.site.id,
    conversationId: input.conversationId,
    client: input.client,
    breaker: siteBreaker(input.site.id),
    budget,
    state,
    writes: {
      scope: {
        userId: input.userId,
        siteId: input.site.id,
        conversationId: input.conversationId,
        turnId: messageId,
        target: input.sandboxId ? "sandbox" : "live",
        sandboxId: input.sandboxId ?? null,
      },
      client: input.client,
      plans: new Map(),
      approvedToolCalls: state.approvedToolCalls,
      emitChange: (part) => emit({ type: "data-change", id: part.toolCallId, data: part }),
      ...(input.afterLiveWrite ? { afterLiveWrite: input.afterLiveWrite } : {}),
    },
    ...(input.regrant ? { regrant: input.regrant } : {}),
    ...(input.startJob ? { startJob: startJobAndTell(input.startJob, emit) } : {}),
  };
}

/** A bulk job started by the turn: the stream carries it as a `data-job` part, then the page follows its progress. */
function startJobAndTell(start: NonNullable<TurnInput["startJob"]>, emit: Emit): NonNullable<ToolContext["startJob"]> {
  return async (spec) => {
    const result = await start(spec);
    const job = (result.data as { job?: JobPart }).job;
    if (job) emit({ type: "data-job", id: job.id, data: job });
    return result;
  };
}

/** After each model step: count it against the budget, and audit the tool calls the model got wrong. */
async function recordStep(ctx: ToolContext, step: StepResult<ToolSet>): Promise<void> {
  ctx.budget.addStep(step.usage.totalTokens);
  const invalid = step.content.filter((part) => part.type === "tool-call" && part.invalid);
  ctx.budget.countInvalidToolCalls(invalid.length);
  for (const part of invalid) {
    if (part.type !== "tool-call") continue;
    const error = "error" in part && part.error instanceof Error ? part.error.message : "invalid tool call";
    await auditInvalidCall(ctx, { toolCallId: part.toolCallId, toolName: part.toolName, input: part.input, error });
  }
}

type ModelRun = { failed: boolean; finishReason?: string };

/** Calls the model within the budget and passes its stream on; a failure becomes an error chunk, not a throw. */
async function runModel(input: TurnInput, ctx: ToolContext, emit: Emit): Promise<ModelRun> {
  const { budget, state } = ctx;
  const tools = buildTools(input.operations, ctx, input.locked);
  let failed = false;
  try {
    const result = streamText({
      model: input.model.model,
      system: systemPrompt(
        input.site,
        input.operations,
        state.flagged,
        input.notVisible,
        input.locked,
        input.freshCopy,
      ),
      messages: await convertToModelMessages(input.history, {
        tools: { ...historyTools, ...tools },
        ignoreIncompleteToolCalls: true,
        convertDataPart: dataPartForModel,
      }),
      tools,
      stopWhen: budget.stopCondition(),
      abortSignal: budget.signal,
      maxRetries: 1,
      onStepFinish: (step) => recordStep(ctx, step),
      onError: ({ error }) => {
        if (!budget.signal.aborted) log.warn("agent model stream failed", { error, siteId: input.site.id });
      },
    });
    for await (const chunk of result.toUIMessageStream<ChatMessage>({
      sendStart: false,
      sendFinish: false,
      onError: describeStreamError,
    })) {
      if (chunk.type === "abort") continue; // said in words below instead
      if (chunk.type === "error") failed = true;
      emit(chunk);
    }
    const finishReason = budget.signal.aborted
      ? undefined
      : await Promise.resolve(result.finishReason).catch(() => undefined);
    return { failed, finishReason };
  } catch (error) {
    emit({ type: "error", errorText: describeStreamError(error) });
    return { failed: true };
  } finally {
    budget.dispose();
  }
}

/** Why the run ended, its counts, and the change set it made (if any): the metadata of the response message. */
async function turnMetadata(input: TurnInput, messageId: string, budget: RunBudget, failed: boolean) {
  const clientLeft = Boolean(input.signal?.aborted) && !budget.timedOut;
  const stopReason: TurnMetadata["stopReason"] =
    budget.stopReason ?? (clientLeft ? "aborted" : failed ? "error" : "finished");
  const changeSet = await findChangeSetForTurn({
    conversationId: input.conversationId,
    turnId: messageId,
    target: input.sandboxId ? "sandbox" : "live",
  }).catch((error: unknown) => {
    log.error("could not look up the turn's change set", { error, conversationId: input.conversationId });
    return undefined;
  });
  const metadata: TurnMetadata = {
    stopReason,
    steps: budget.steps,
    toolCalls: budget.toolCalls,
    tokens: budget.tokens,
    ms: budget.elapsedMs,
    limits: budget.limits,
    ...(changeSet ? { changeSetId: changeSet.id } : {}),
    mode: input.sandboxId ? "sandbox" : "live",
    ...(input.sandboxId ? { sandboxId: input.sandboxId } : {}),
  };
  return metadata;
}

/** When the run was cut short, a closing message in words: what was done and what was not. */
function emitClosing(emit: Emit, messageId: string, text: string | undefined): void {
  if (!text) return;
  const id = `closing-${messageId}`;
  emit({ type: "text-start", id });
  emit({ type: "text-delta", id, delta: text });
  emit({ type: "text-end", id });
}

/**
 * Saves the conversation with this turn's response; a failure is told to the user, not thrown. Written to the
 * client only: the response's own copy is closed by now (writing to it threw, and the owner read "unexpected error").
 */
async function saveTurn(
  input: TurnInput,
  continuing: boolean,
  response: ChatMessage | undefined,
  metadata: TurnMetadata,
  writer: TurnWriter,
): Promise<void> {
  try {
    const base = continuing ? input.history.slice(0, -1) : input.history;
    const all = response ? [...base, { ...response, metadata }] : base;
    await saveMessages({
      conversationId: input.conversationId,
      messages: all.map((m) => ({ id: m.id, role: m.role, parts: m.parts, metadata: m.metadata })),
      now: now(),
    });
  } catch (error) {
    log.error("could not save the conversation", { error, conversationId: input.conversationId });
    writer.write({
      type: "error",
      errorText: "This conversation could not be saved; what was done on the site is in the activity log.",
    });
  }
}

export function streamTurn(input: TurnInput): ReadableStream<Chunk> {
  return createUIMessageStream<ChatMessage>({
    onError: describeStreamError,
    execute: async ({ writer }) => {
      const last = input.history.at(-1);
      const continuing = last?.role === "assistant";
      const messageId = continuing ? last.id : randomUUID();
      const response = responseCollector(writer, continuing ? last : undefined);

      // First bytes before the model is called: the client knows its conversation at once.
      response.emit({ type: "start", messageId });
      writer.write({ type: "data-conversation", data: { conversationId: input.conversationId }, transient: true });

      const budget = new RunBudget(input.limits, input.signal);
      const state: RunState = {
        flagged: input.flagged,
        approvedToolCalls: input.approvedToolCalls ?? new Set(),
        outcomes: [],
      };
      const ctx = toolContext(input, messageId, budget, state, response.emit);
      const { failed, finishReason } = await runModel(input, ctx, response.emit);

      const metadata = await turnMetadata(input, messageId, budget, failed);
      emitClosing(response.emit, messageId, closingText(budget, state.outcomes, metadata.stopReason));
      if (metadata.stopReason !== "finished")
        log.info("agent run ended early", { ...metadata, siteId: input.site.id, conversationId: input.conversationId });

      await saveTurn(input, continuing, await response.finish(metadata), metadata, writer);
      writer.write({
        type: "finish",
        finishReason: (finishReason as "stop" | "tool-calls" | undefined) ?? (failed ? "error" : "stop"),
        messageMetadata: metadata,
      });
    },
  });
}
