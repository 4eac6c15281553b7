/**
 * A stored conversation shown read-only, for a site that is no longer connected: rendered on the server, so the
 * page needs none of the Markdown or tool-card JavaScript the live chat loads.
 */
import type { ChatMessage } from "@/lib/agent/chat-message";
import styles from "./chat.module.css";
import { MessageItem } from "./message-item";

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
        <MessageItem key={message.id} message={message} labels={labels} />
      ))}
    </ol>
  );
}
