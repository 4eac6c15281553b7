/**
 * The chat's connection to the server: `useChat` over our transport, the conversation's address once the server
 * has made it, and the offline and mid-stream error states the transport reports.
 */
import { useChat } from "@ai-sdk/react";
import { lastAssistantMessageIsCompleteWithApprovalResponses } from "ai";
import { useEffect, useMemo, useRef, useState } from "react";
import type { Attachment, ChatMessage } from "@/lib/agent/chat-message";
import { storedConversationAction } from "./actions";
import { CONVERSATION_STARTED, type ConversationStarted } from "./conversation-list";
import { ChatRequestError, createChatTransport } from "./transport";

export type ChatSessionOptions = {
  siteId: string;
  conversationId?: string;
  initialMessages: ChatMessage[];
  agentConfigured: boolean;
  mode: "live" | "sandbox";
};

/** `@ai-sdk/react` types `onData` against its own copy of `ai`, so the data part is checked rather than cast. */
function conversationIdOf(data: unknown): string | undefined {
  if (!data || typeof data !== "object" || !("conversationId" in data)) return undefined;
  return typeof data.conversationId === "string" ? data.conversationId : undefined;
}

/** A new chat gets its address once the server has made the conversation, so a reload keeps it. */
function announceConversation(id: string, title: string) {
  const url = new URL(window.location.href);
  if (url.searchParams.get("c") === id) return;
  const detail: ConversationStarted = { id, title };
  window.dispatchEvent(new CustomEvent(CONVERSATION_STARTED, { detail }));
  url.searchParams.set("c", id);
  url.searchParams.delete("new");
  window.history.replaceState(window.history.state, "", url);
}

export function useChatSession({ siteId, conversationId, initialMessages, agentConfigured, mode }: ChatSessionOptions) {
  const conversation = useRef(conversationId);
  const modeRef = useRef(mode);
  modeRef.current = mode;
  /** The first message of a new chat: the server titles the conversation with it (its first 80 characters). */
  const pendingTitle = useRef("");
  const [unavailable, setUnavailable] = useState<string | undefined>(
    agentConfigured ? undefined : "The assistant is not configured on this server.",
  );
  const [streamError, setStreamError] = useState<string>();
  const transport = useMemo(
    () =>
      createChatTransport({
        siteId,
        conversationId: () => conversation.current,
        mode: () => modeRef.current,
        onUnavailable: setUnavailable,
        onStreamError: setStreamError,
      }),
    [siteId],
  );
  const chat = useChat<ChatMessage>({
    id: conversationId ?? `new-${siteId}`,
    messages: initialMessages,
    transport,
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    onData: (part) => {
      const id = part.type === "data-conversation" ? conversationIdOf(part.data) : undefined;
      if (!id) return;
      conversation.current = id;
      announceConversation(id, pendingTitle.current);
    },
    onFinish: ({ message }) => {
      if (!message.metadata?.offline) setUnavailable(undefined);
    },
  });
  useStoredAfterDrop(chat, siteId, conversation);

  const { clearError, sendMessage } = chat;
  const send = (text: string, attachments: Attachment[] = []) => {
    if (!conversation.current) pendingTitle.current = (text || attachments[0]?.name || "").slice(0, 80);
    clearError();
    setStreamError(undefined);
    if (attachments.length === 0) {
      void sendMessage({ text });
      return;
    }
    void sendMessage({
      parts: [
        ...(text ? [{ type: "text" as const, text }] : []),
        ...attachments.map((data) => ({ type: "data-attachment" as const, id: data.id, data })),
      ],
    });
  };
  return { ...chat, send, unavailable, streamError };
}

/** After a dropped connection, show what the server saved for this turn instead of a half-streamed bubble. */
function useStoredAfterDrop(
  { status, error, setMessages }: Pick<ReturnType<typeof useChat<ChatMessage>>, "status" | "error" | "setMessages">,
  siteId: string,
  conversation: { current: string | undefined },
) {
  useEffect(() => {
    if (status !== "error" || !error || error instanceof ChatRequestError || !conversation.current) return;
    let cancelled = false;
    void storedConversationAction(siteId, conversation.current).then((stored) => {
      if (!cancelled && stored?.length) setMessages(stored);
    });
    return () => {
      cancelled = true;
    };
  }, [status, error, siteId, setMessages, conversation]);
}
