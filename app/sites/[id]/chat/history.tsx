"use client";
/** A stored conversation shown read-only: for a site that is no longer connected, whose history stays readable. */
import { isToolUIPart } from "ai";
import { STOP_REASON_WORDS } from "@/lib/agent/chat-constants";
import type { ChatMessage } from "@/lib/agent/chat-message";
import styles from "./chat.module.css";
import { Markdown } from "./markdown";
import { ToolCard } from "./tool-card";

export function ChatPanelMessagesOnly({
  messages,
  labels,
}: {
  messages: ChatMessage[];
  labels: Record<string, string>;
}) {
  if (messages.length === 0) return <p className="muted">No messages in this conversation.</p>;
  return (
    <ol className={styles.messages} aria-label="Conversation" data-testid="history">
      {messages.map((message) => (
        <li
          key={message.id}
          className={message.role === "user" ? styles.user : styles.assistant}
          data-role={message.role}
        >
          <span className="visually-hidden">{message.role === "user" ? "You said:" : "Assistant:"}</span>
          {message.parts.map((part, index) => {
            const key = `${message.id}-${index}`;
            if (part.type === "text")
              return message.role === "assistant" ? (
                <Markdown key={key} text={part.text} className={styles.markdown} />
              ) : (
                <p key={key} className={styles.text}>
                  {part.text}
                </p>
              );
            if (isToolUIPart(part)) return <ToolCard key={part.toolCallId} part={part} labels={labels} />;
            return null;
          })}
          {message.metadata?.stopReason && STOP_REASON_WORDS[message.metadata.stopReason] ? (
            <small className="muted">{STOP_REASON_WORDS[message.metadata.stopReason]}</small>
          ) : null}
        </li>
      ))}
    </ol>
  );
}
