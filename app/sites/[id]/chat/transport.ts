/**
 * How the chat page talks to `POST /chat`: only the new message (or the answers to approval requests) is sent,
 * the server keeps the conversation. When the assistant is unreachable (network, 5xx such as 503
 * agent_unavailable) the reply is a clearly labelled offline placeholder instead of a dead end.
 *
 * An `error` chunk in the stream (the model endpoint failed mid-turn) is taken out of the stream and reported
 * through `onStreamError`: the AI SDK would otherwise stop reading at it and drop the server's closing words
 * ("Nothing was changed on the site."), so the live view would say less than the stored reply does.
 */
import { DefaultChatTransport, isToolUIPart, type ChatTransport, type InferUIMessageChunk } from "ai";
import type { ChatMessage } from "@/lib/agent/chat-message";

type Chunk = InferUIMessageChunk<ChatMessage>;

/** A refusal the user can act on (4xx): shown as the error, in the server's own words. */
export class ChatRequestError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = "ChatRequestError";
  }
}

/** The assistant cannot be reached at all. */
export class AssistantUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AssistantUnavailableError";
  }
}

async function chatFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(input, init);
  } catch (error) {
    if ((error as Error)?.name === "AbortError") throw error;
    throw new AssistantUnavailableError("Sitewright could not be reached. Check your connection.");
  }
  if (response.ok) return response;
  let code = "error";
  let message = `The request failed (HTTP ${response.status}).`;
  try {
    const body = (await response.json()) as { error?: { code?: string; message?: string } };
    code = body.error?.code ?? code;
    message = body.error?.message ?? message;
  } catch {
    // not JSON: keep the generic sentence
  }
  if (response.status >= 500) throw new AssistantUnavailableError(message);
  throw new ChatRequestError(code, message, response.status);
}

const textOf = (message: ChatMessage | undefined) =>
  message?.parts.map((part) => (part.type === "text" ? part.text : "")).join("") ?? "";

/** The request body for the server: a message, or the answers to approval requests of the last assistant message. */
export function chatRequestBody(
  siteId: string,
  conversationId: string | undefined,
  messages: ChatMessage[],
  mode?: "live" | "sandbox",
) {
  const last = messages.at(-1);
  if (last?.role === "assistant") {
    const approvals = last.parts.flatMap((part) =>
      isToolUIPart(part) && part.state === "approval-responded"
        ? [
            {
              id: part.approval.id,
              approved: part.approval.approved,
              ...(part.approval.reason ? { reason: part.approval.reason } : {}),
            },
          ]
        : [],
    );
    return { siteId, conversationId, approvals };
  }
  const uploads = last?.parts.flatMap((part) => (part.type === "data-attachment" ? [part.data.id] : [])) ?? [];
  return {
    siteId,
    conversationId,
    message: textOf(last),
    ...(uploads.length ? { uploads } : {}),
    ...(mode ? { mode } : {}),
  };
}

function offlineReply(reason: string, userText: string): ReadableStream<Chunk> {
  const id = "offline";
  const text =
    `Offline reply — the assistant is unavailable (${reason}). Nothing was sent to your site.` +
    (userText ? ` Your message is kept above; send it again when the assistant is back.` : "");
  const chunks: Chunk[] = [
    { type: "start", messageMetadata: { offline: true } },
    { type: "data-offline", data: { reason } },
    { type: "text-start", id },
    { type: "text-delta", id, delta: text },
    { type: "text-end", id },
    { type: "finish" },
  ];
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

export function createChatTransport(options: {
  /** Where `POST /chat` is; tests point it at a running server. */
  api?: string;
  siteId: string;
  conversationId: () => string | undefined;
  /** Sandbox or live, as the owner chose (unset: the server's default). */
  mode?: () => "live" | "sandbox" | undefined;
  onUnavailable: (reason: string) => void;
  /** The server's sentence for an error during the turn; the rest of the turn keeps streaming. */
  onStreamError?: (message: string) => void;
}): ChatTransport<ChatMessage> {
  const inner = new DefaultChatTransport<ChatMessage>({
    api: options.api ?? "/chat",
    fetch: chatFetch,
    prepareSendMessagesRequest: ({ messages }) => ({
      body: chatRequestBody(options.siteId, options.conversationId(), messages, options.mode?.()),
    }),
  });
  return {
    async sendMessages(request) {
      try {
        const stream = await inner.sendMessages(request);
        return stream.pipeThrough(
          new TransformStream<Chunk, Chunk>({
            transform(chunk, controller) {
              if (chunk.type === "error") options.onStreamError?.(chunk.errorText);
              else controller.enqueue(chunk);
            },
          }),
        );
      } catch (error) {
        if (!(error instanceof AssistantUnavailableError)) throw error;
        options.onUnavailable(error.message);
        return offlineReply(error.message, textOf(request.messages.at(-1)));
      }
    },
    reconnectToStream: async () => null,
  };
}
