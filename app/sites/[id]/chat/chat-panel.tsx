"use client";
/**
 * The chat: streamed replies rendered as safe Markdown, a card per tool call, approve/deny, stop and retry,
 * follow-the-reply scrolling with "Jump to latest", and an offline fallback. Screen readers hear status changes
 * (working, waiting for approval, finished) from one polite status line, not the stream token by token.
 */
import { useChat } from "@ai-sdk/react";
import { isToolUIPart, lastAssistantMessageIsCompleteWithApprovalResponses } from "ai";
import { type FormEvent, type KeyboardEvent, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { MAX_MESSAGE_BYTES, STOP_REASON_WORDS } from "@/lib/agent/chat-constants";
import type { ChatMessage } from "@/lib/agent/chat-message";
import { storedConversationAction } from "./actions";
import styles from "./chat.module.css";
import { Markdown } from "./markdown";
import { ToolCard, type ToolChange } from "./tool-card";
import { CONVERSATION_STARTED, type ConversationStarted } from "./conversation-list";
import { ChatRequestError, createChatTransport } from "./transport";

const encoder = new TextEncoder();
/** Within this many pixels of the bottom, the list follows the reply as it grows. */
const FOLLOW_SLACK_PX = 48;

type Props = {
  siteId: string;
  conversationId?: string;
  initialMessages: ChatMessage[];
  agentConfigured: boolean;
  labels: Record<string, string>;
  /** Sandboxes are on: offer sandbox mode (the default) next to live. */
  sandboxesEnabled?: boolean;
};

const textOf = (message: ChatMessage | undefined) =>
  message?.parts.map((part) => (part.type === "text" ? part.text : "")).join("") ?? "";

/** A message shows something once it has text or a tool card; before that the typing indicator stands in. */
const hasVisibleParts = (message: ChatMessage) =>
  message.parts.some((part) => (part.type === "text" && part.text.trim() !== "") || isToolUIPart(part));

/** `@ai-sdk/react` types `onData` against its own copy of `ai`, so the data part is checked rather than cast. */
function conversationIdOf(data: unknown): string | undefined {
  if (!data || typeof data !== "object" || !("conversationId" in data)) return undefined;
  return typeof data.conversationId === "string" ? data.conversationId : undefined;
}

function errorInWords(error: Error): string {
  if (error instanceof ChatRequestError) return error.message;
  if (error.name === "AbortError") return "Stopped.";
  return "The connection to Sitewright dropped before the reply finished. What was saved is shown above.";
}

export function ChatPanel({
  siteId,
  conversationId,
  initialMessages,
  agentConfigured,
  labels,
  sandboxesEnabled,
}: Props) {
  const conversation = useRef(conversationId);
  const [mode, setMode] = useState<"live" | "sandbox">(sandboxesEnabled ? "sandbox" : "live");
  const modeRef = useRef(mode);
  modeRef.current = mode;
  /** The first message of a new chat: the server titles the conversation with it (its first 80 characters). */
  const pendingTitle = useRef("");
  const [unavailable, setUnavailable] = useState<string | undefined>(
    agentConfigured ? undefined : "The assistant is not configured on this server.",
  );
  const [streamError, setStreamError] = useState<string>();
  const [stopped, setStopped] = useState(false);
  const [input, setInput] = useState("");
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
  const { messages, setMessages, sendMessage, status, stop, error, addToolApprovalResponse, clearError } =
    useChat<ChatMessage>({
      id: conversationId ?? `new-${siteId}`,
      messages: initialMessages,
      transport,
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
      onData: (part) => {
        const conversationId = part.type === "data-conversation" ? conversationIdOf(part.data) : undefined;
        if (conversationId) {
          conversation.current = conversationId;
          // A new chat gets its address once the server has made the conversation, so a reload keeps it.
          const url = new URL(window.location.href);
          if (url.searchParams.get("c") !== conversationId) {
            const detail: ConversationStarted = { id: conversationId, title: pendingTitle.current };
            window.dispatchEvent(new CustomEvent(CONVERSATION_STARTED, { detail }));
            url.searchParams.set("c", conversationId);
            url.searchParams.delete("new");
            window.history.replaceState(window.history.state, "", url);
          }
        }
      },
      onFinish: ({ message }) => {
        if (!message.metadata?.offline) setUnavailable(undefined);
      },
    });

  const busy = status === "submitted" || status === "streaming";
  const bytes = encoder.encode(input).length;
  const tooLong = bytes > MAX_MESSAGE_BYTES;
  const last = messages.at(-1);
  const lastUserText = textOf(messages.findLast((message) => message.role === "user"));
  const pendingApprovals = busy
    ? []
    : (last?.parts.flatMap((part) =>
        isToolUIPart(part) && part.state === "approval-requested" ? [part.approval.id] : [],
      ) ?? []);
  const waitingForApproval = pendingApprovals.length > 0;
  const canRetry =
    !busy &&
    lastUserText !== "" &&
    (status === "error" || stopped || Boolean(streamError) || Boolean(last?.metadata?.offline));
  const working = busy && (last?.role !== "assistant" || !hasVisibleParts(last));

  // Hydrated: the composer answers from here on. The bench reads this mark as the page's time to interactive.
  const [ready, setReady] = useState(false);
  useEffect(() => {
    performance.mark("sitewright:chat-interactive");
    setReady(true);
  }, []);

  // After a dropped connection, show what the server saved for this turn instead of a half-streamed bubble.
  useEffect(() => {
    if (status !== "error" || !error || error instanceof ChatRequestError || !conversation.current) return;
    let cancelled = false;
    void storedConversationAction(siteId, conversation.current).then((stored) => {
      if (!cancelled && stored?.length) setMessages(stored);
    });
    return () => {
      cancelled = true;
    };
  }, [status, error, siteId, setMessages]);

  // Follow the reply while the reader is at the bottom; stop as soon as they scroll up.
  const list = useRef<HTMLDivElement>(null);
  const [following, setFollowing] = useState(true);
  const onScroll = useCallback(() => {
    const box = list.current;
    if (!box) return;
    setFollowing(box.scrollHeight - box.scrollTop - box.clientHeight <= FOLLOW_SLACK_PX);
  }, []);
  const jumpToLatest = useCallback(() => {
    const box = list.current;
    if (box) box.scrollTop = box.scrollHeight;
    setFollowing(true);
  }, []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on every change of the messages and the status, which grow the list
  useEffect(() => {
    const box = list.current;
    if (box && following) box.scrollTop = box.scrollHeight;
  }, [messages, status, following]);

  const statusLine = busy
    ? "The assistant is working on your request."
    : waitingForApproval
      ? "The assistant is waiting for your approval."
      : stopped
        ? "Stopped."
        : status === "error" || streamError
          ? "The reply ended with an error."
          : messages.length > 0
            ? "The assistant's reply is complete."
            : "";

  const send = (text: string) => {
    if (!conversation.current) pendingTitle.current = text.slice(0, 80);
    clearError();
    setStreamError(undefined);
    setStopped(false);
    setFollowing(true);
    void sendMessage({ text });
  };
  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    const text = input.trim();
    if (!text || tooLong || busy) return;
    send(text);
    setInput("");
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey) submit(event);
  };

  return (
    <section className={styles.chat} data-testid="chat" data-ready={ready || undefined} aria-label="Chat">
      {sandboxesEnabled ? (
        <fieldset className={styles.mode} data-testid="chat-mode">
          <legend>Where changes go</legend>
          <label>
            <input
              type="radio"
              name="mode"
              value="sandbox"
              checked={mode === "sandbox"}
              onChange={() => setMode("sandbox")}
            />{" "}
            Sandbox: try on a copy first, apply when you like it
          </label>{" "}
          <label>
            <input type="radio" name="mode" value="live" checked={mode === "live"} onChange={() => setMode("live")} />{" "}
            Live site: each visible change waits for your approval
          </label>
        </fieldset>
      ) : (
        <p className="muted" data-testid="chat-mode">
          Changes go to your live site; each visible change waits for your approval.
        </p>
      )}
      {unavailable ? (
        <p className={`card ${styles.banner}`} role="alert" data-testid="assistant-unavailable">
          The assistant is unavailable: {unavailable} Replies marked “Offline reply” are placeholders; nothing is sent
          to your site.
        </p>
      ) : null}

      <p className="visually-hidden" role="status" aria-live="polite" data-testid="chat-status">
        {statusLine}
      </p>

      <div className={styles.scroller} ref={list} onScroll={onScroll} data-testid="messages">
        <ol className={styles.messages} aria-label="Conversation">
          {messages.length === 0 ? (
            <li className="muted">Ask for a change, for example “Rename the About page to About us”.</li>
          ) : null}
          {messages.map((message) => {
            if (message.role === "assistant" && !hasVisibleParts(message) && !message.metadata?.stopReason) return null;
            const stopWords = message.metadata?.stopReason ? STOP_REASON_WORDS[message.metadata.stopReason] : undefined;
            const changes = new Map<string, ToolChange>(
              message.parts.flatMap((part) => (part.type === "data-change" && part.id ? [[part.id, part.data]] : [])),
            );
            return (
              <li
                key={message.id}
                className={message.role === "user" ? styles.user : styles.assistant}
                data-role={message.role}
              >
                <span className="visually-hidden">{message.role === "user" ? "You said:" : "Assistant:"}</span>
                {message.metadata?.offline ? <div className={styles.offlineLabel}>Offline reply</div> : null}
                {message.parts.map((part, index) => {
                  if (part.type === "text") {
                    const key = `${message.id}-${index}`;
                    return message.role === "assistant" ? (
                      <Markdown key={key} text={part.text} className={styles.markdown} />
                    ) : (
                      <p key={key} className={styles.text}>
                        {part.text}
                      </p>
                    );
                  }
                  if (isToolUIPart(part)) {
                    return (
                      <ToolCard
                        key={part.toolCallId}
                        part={part}
                        labels={labels}
                        change={changes.get(part.toolCallId)}
                        onAnswer={(id, approved) => void addToolApprovalResponse({ id, approved })}
                      />
                    );
                  }
                  return null;
                })}
                {message === last && pendingApprovals.length > 1 ? (
                  <button
                    type="button"
                    className="danger"
                    data-testid="approve-all"
                    onClick={() => {
                      for (const id of pendingApprovals) void addToolApprovalResponse({ id, approved: true });
                    }}
                  >
                    Approve all {pendingApprovals.length} changes
                  </button>
                ) : null}
                {message.metadata?.mode === "sandbox" && message.metadata.changeSetId ? (
                  <p className={styles.text} data-testid="rehearsal-link">
                    Rehearsed in a sandbox: your live site is unchanged.{" "}
                    <a href={`/sites/${siteId}/review/${message.metadata.changeSetId}`}>Review and apply</a>
                  </p>
                ) : null}
                {message.metadata?.changeSetId && message.metadata.mode !== "sandbox" ? (
                  <small>
                    <a
                      href={`/sites/${siteId}/changes/history#${message.metadata.changeSetId}`}
                      data-testid="turn-changes"
                    >
                      See or undo this turn's changes
                    </a>
                  </small>
                ) : null}
                {stopWords ? <small className="muted">{stopWords}</small> : null}
              </li>
            );
          })}
          {working ? (
            <li className={`${styles.assistant} ${styles.typing}`} data-testid="typing">
              <span className={styles.dots} aria-hidden="true">
                <span />
                <span />
                <span />
              </span>
              <span className="muted">{status === "submitted" ? "Thinking…" : "Working…"}</span>
            </li>
          ) : null}
        </ol>
      </div>
      {!following ? (
        <button type="button" className={`secondary ${styles.jump}`} onClick={jumpToLatest}>
          Jump to latest ↓
        </button>
      ) : null}

      {streamError ? (
        <p className="error" role="alert" data-testid="chat-error">
          {streamError}
        </p>
      ) : error ? (
        <p className="error" role="alert" data-testid="chat-error">
          {errorInWords(error)}
        </p>
      ) : null}

      <form className={styles.composer} onSubmit={submit}>
        <textarea
          aria-label="Message"
          value={input}
          rows={3}
          placeholder={
            waitingForApproval ? "Approve or deny above, or write a new message…" : "What should change on your site?"
          }
          onChange={(event) => setInput(event.target.value)}
          onKeyDown={onKeyDown}
        />
        <div className={styles.actions}>
          {busy ? (
            <button
              type="button"
              className="secondary"
              onClick={() => {
                setStopped(true);
                void stop();
              }}
            >
              Stop
            </button>
          ) : (
            <button type="submit" disabled={!input.trim() || tooLong}>
              Send
            </button>
          )}
          {canRetry ? (
            <button type="button" className="secondary" onClick={() => send(lastUserText)}>
              Retry
            </button>
          ) : null}
          <small className={tooLong ? "error" : "muted"}>
            {tooLong
              ? `Too long: ${bytes} of ${MAX_MESSAGE_BYTES} bytes.`
              : bytes > MAX_MESSAGE_BYTES * 0.8
                ? `${bytes} of ${MAX_MESSAGE_BYTES} bytes`
                : ""}
          </small>
        </div>
      </form>
    </section>
  );
}
