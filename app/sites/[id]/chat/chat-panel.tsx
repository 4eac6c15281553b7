"use client";
/** The chat: streamed replies, a card per tool call, approve/deny, stop, retry, and an offline fallback. */
import { useChat } from "@ai-sdk/react";
import { isToolUIPart, lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from "ai";
import { useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import styles from "./chat.module.css";
import { ToolCard } from "./tool-card";
import { ChatRequestError, createChatTransport } from "./transport";

const MAX_BYTES = 8 * 1024;
const encoder = new TextEncoder();

type Props = { siteId: string; conversationId?: string; initialMessages: UIMessage[]; agentConfigured: boolean };

const STOP_REASONS: Record<string, string> = {
  max_steps: "Stopped at the step limit.",
  max_tool_calls: "Stopped at the tool call limit.",
  max_tokens: "Stopped at the token limit.",
  timeout: "Stopped at the time limit.",
  error: "Stopped by an error.",
  aborted: "Stopped.",
};

function errorInWords(error: Error): string {
  if (error instanceof ChatRequestError) return error.message;
  if (error.name === "AbortError") return "Stopped.";
  return "The reply was interrupted. Your site may have been changed partly; the cards above show what was done. Try again.";
}

export function ChatPanel({ siteId, conversationId, initialMessages, agentConfigured }: Props) {
  const conversation = useRef(conversationId);
  const [unavailable, setUnavailable] = useState<string | undefined>(agentConfigured ? undefined : "The assistant is not configured on this server.");
  const [input, setInput] = useState("");
  const transport = useMemo(
    () => createChatTransport({ siteId, conversationId: () => conversation.current, onUnavailable: setUnavailable }),
    [siteId],
  );
  const { messages, sendMessage, status, stop, error, regenerate, addToolApprovalResponse, clearError } = useChat({
    id: conversationId ?? `new-${siteId}`,
    messages: initialMessages,
    transport,
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    onData: (part) => {
      if (part.type === "data-conversation") conversation.current = (part.data as { conversationId: string }).conversationId;
    },
    onFinish: ({ message }) => {
      if (!(message.metadata as { offline?: boolean } | undefined)?.offline) setUnavailable(undefined);
    },
  });

  const busy = status === "submitted" || status === "streaming";
  const bytes = encoder.encode(input).length;
  const tooLong = bytes > MAX_BYTES;
  const last = messages.at(-1);
  const lastFailed = status === "error" || (last?.role === "assistant" && (last.metadata as { offline?: boolean; stopReason?: string } | undefined)?.offline);
  const waitingForApproval = last?.parts.some((part) => isToolUIPart(part) && part.state === "approval-requested");

  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    const text = input.trim();
    if (!text || tooLong || busy) return;
    clearError();
    void sendMessage({ text });
    setInput("");
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey) submit(event);
  };

  return (
    <section className={styles.chat} data-testid="chat">
      {unavailable ? (
        <p className={`card ${styles.banner}`} role="alert" data-testid="assistant-unavailable">
          The assistant is unavailable: {unavailable} Replies marked “Offline reply” are placeholders; nothing is sent to your site.
        </p>
      ) : null}

      <ol className={styles.messages} aria-live="polite">
        {messages.length === 0 ? <li className="muted">Ask for a change, for example “Rename the About page to About us”.</li> : null}
        {messages.map((message) => {
          const metadata = message.metadata as { offline?: boolean; stopReason?: string } | undefined;
          return (
            <li key={message.id} className={message.role === "user" ? styles.user : styles.assistant} data-role={message.role}>
              {metadata?.offline ? <div className={styles.offlineLabel}>Offline reply</div> : null}
              {message.parts.map((part, index) => {
                if (part.type === "text") return <p key={index} className={styles.text}>{part.text}</p>;
                if (isToolUIPart(part)) {
                  return (
                    <ToolCard key={part.toolCallId} part={part} onAnswer={(id, approved) => void addToolApprovalResponse({ id, approved })} />
                  );
                }
                return null;
              })}
              {metadata?.stopReason && STOP_REASONS[metadata.stopReason] ? <small className="muted">{STOP_REASONS[metadata.stopReason]}</small> : null}
            </li>
          );
        })}
        {status === "submitted" ? <li className={`${styles.assistant} muted`}>Thinking…</li> : null}
      </ol>

      {error ? (
        <p className="error" role="alert" data-testid="chat-error">
          {errorInWords(error)}
        </p>
      ) : null}

      <form className={styles.composer} onSubmit={submit}>
        <textarea
          aria-label="Message"
          value={input}
          rows={3}
          placeholder={waitingForApproval ? "Approve or deny above, or write a new message…" : "What should change on your site?"}
          onChange={(event) => setInput(event.target.value)}
          onKeyDown={onKeyDown}
        />
        <div className={styles.actions}>
          {busy ? (
            <button type="button" className="secondary" onClick={() => void stop()}>
              Stop
            </button>
          ) : (
            <button type="submit" disabled={!input.trim() || tooLong}>
              Send
            </button>
          )}
          {!busy && lastFailed && messages.length > 0 ? (
            <button type="button" className="secondary" onClick={() => { clearError(); void regenerate(); }}>
              Retry
            </button>
          ) : null}
          <small className={tooLong ? "error" : "muted"}>
            {tooLong ? `Too long: ${bytes} of ${MAX_BYTES} bytes.` : bytes > MAX_BYTES * 0.8 ? `${bytes} of ${MAX_BYTES} bytes` : ""}
          </small>
        </div>
      </form>
    </section>
  );
}
