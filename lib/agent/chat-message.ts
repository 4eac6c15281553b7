/**
 * The one chat message type shared by the server (the agent's stream, stored conversations) and the chat page
 * (`useChat<ChatMessage>`), after ai-chatbot's `lib/types.ts`: metadata, data parts and tools are all typed, the
 * tools inferred from the operations themselves. Type-only imports: this module adds nothing to a page's bundle.
 */
import type { InferUITool, Tool, UIMessage } from "ai";
import type { z } from "zod";
import type { BudgetLimits, StopReason } from "./budget";
import type { OPERATIONS } from "./operations";
import type { ToolOutput } from "./tools";
import type { ChangePart } from "./writes";

/** A file attached to a message, as `POST /sites/:id/uploads` answered it. */
export type Attachment = { id: string; name: string; type: string; size: number; width?: number; height?: number };

/** Every operation the agent knows, each with its own name and input type. */
type AnyOperation = (typeof OPERATIONS)[number];

/** How an agent turn ended: sent as the finish chunk's metadata. */
export type TurnMetadata = {
  /** Why the run ended: a budget limit, an error, the client leaving, or the model finishing (`finished`). */
  stopReason: StopReason | "error" | "aborted" | "finished";
  steps: number;
  toolCalls: number;
  tokens: number;
  /** Wall time the turn took, in ms. */
  ms?: number;
  /** The turn's own budget (AGENT_MAX_*), shown beside what it used; a bulk job it starts has its own. */
  limits?: BudgetLimits;
  /** The turn's change set (on the live site, or in the sandbox), when the turn changed (or waits to change) anything. */
  changeSetId?: string;
  /** Where the turn worked: the live site, or a sandbox copy of it. */
  mode?: "live" | "sandbox";
  sandboxId?: string;
};

/** Every operation as the UI sees it: its name, the input the model gave, and what the tool answered. */
export type ChatTools = {
  [Op in AnyOperation as Op["name"]]: InferUITool<Tool<z.input<Op["input"]>, ToolOutput>>;
};

export type OperationName = keyof ChatTools;

/** Per message: how an agent turn ended (server), or that the reply is the page's offline placeholder (client). */
export type ChatMetadata = Partial<TurnMetadata> & { offline?: boolean };

/** A bulk job as the stream carries it (lib/workflows/bulk-job.ts's JobView). */
export type JobPart = {
  id: string;
  siteId: string;
  changeSetId: string;
  status: string;
  selection: { description: string; count: number };
  progress: JobProgressPart;
  /** The job's own budget (BULK_JOB_MAX_*), apart from the turn's. */
  limits: { maxItems: number; maxTokens: number; maxMinutes: number };
  createdAt: string;
  updatedAt: string;
};
export type JobProgressPart = {
  planned: number;
  skipped: number;
  failed: number;
  applied: number;
  tokens: number;
  /** How long planning took, once it stopped (the job's time limit bounds planning). */
  planningMs?: number;
};

export type ChatDataParts = {
  /** First chunk of a turn: the conversation it belongs to (new conversations get their id here). */
  conversation: { conversationId: string };
  /** The page's placeholder reply when the assistant cannot be reached. */
  offline: { reason: string };
  /** A write's change items, planned (waiting for the owner's click) or written; id = the tool call. */
  change: ChangePart;
  /** A bulk job the turn started (docs/bulk-jobs.md); id = the job. */
  job: JobPart;
  /** A file the owner attached to their message (docs/media.md). */
  attachment: Attachment;
};

export type ChatMessage = UIMessage<ChatMetadata | undefined, ChatDataParts, ChatTools>;
export type ChatPart = ChatMessage["parts"][number];
