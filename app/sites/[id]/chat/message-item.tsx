/**
 * One message of a conversation, as both views show it: the server renders the stored history with it (so the
 * first paint needs no Markdown JavaScript) and the live chat renders the streamed messages with it.
 */
import { isToolUIPart } from "ai";
import type { ReactNode } from "react";
import { turnBudgetUse } from "@/lib/agent/budget-use";
import { STOP_REASON_WORDS } from "@/lib/agent/chat-constants";
import type { ChatMessage } from "@/lib/agent/chat-message";
import { BudgetUse } from "../jobs/budget-use";
import styles from "./chat.module.css";
import { Markdown } from "./markdown";
import { AttachmentChip } from "./attachments";
import { LazyToolCard } from "./lazy-tool-card";
import type { ToolChange } from "./tool-card";

/** A message shows something once it has text or a tool card; before that the typing indicator stands in. */
export const hasVisibleParts = (message: ChatMessage) =>
  message.parts.some(
    (part) =>
      (part.type === "text" && part.text.trim() !== "") || isToolUIPart(part) || part.type === "data-attachment",
  );

/** An assistant message with nothing to show yet and no reason it stopped is left out of the list. */
export const isShown = (message: ChatMessage) =>
  message.role !== "assistant" || hasVisibleParts(message) || Boolean(message.metadata?.stopReason);

type Props = {
  message: ChatMessage;
  labels: Record<string, string>;
  /** The site's id: links to the turn's review or change history (left out where the site cannot act). */
  siteId?: string;
  onAnswer?: (id: string, approved: boolean) => void;
  /** Shown after the parts (the live chat's "Approve all"). */
  children?: ReactNode;
};

function Parts({ message, labels, siteId, onAnswer }: Props) {
  const changes = new Map<string, ToolChange>(
    message.parts.flatMap((part) => (part.type === "data-change" && part.id ? [[part.id, part.data]] : [])),
  );
  return message.parts.map((part, index) => {
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
    if (part.type === "data-attachment" && siteId)
      return (
        <ul key={`attachment-${part.data.id}`} className={styles.attachments} aria-label="Attached">
          <AttachmentChip siteId={siteId} attachment={{ ...part.data, key: part.data.id, state: "ready" }} />
        </ul>
      );
    if (isToolUIPart(part))
      return (
        <LazyToolCard
          key={part.toolCallId}
          part={part}
          labels={labels}
          change={changes.get(part.toolCallId)}
          onAnswer={onAnswer}
        />
      );
    return null;
  });
}

function TurnLinks({ message, siteId }: { message: ChatMessage; siteId: string }) {
  const changeSetId = message.metadata?.changeSetId;
  if (!changeSetId) return null;
  if (message.metadata?.mode === "sandbox")
    return (
      <p className={styles.text} data-testid="rehearsal-link">
        Rehearsed in a sandbox: your live site is unchanged.{" "}
        <a href={`/sites/${siteId}/review/${changeSetId}`}>Review and apply</a>
      </p>
    );
  return (
    <small>
      <a href={`/sites/${siteId}/changes/history#${changeSetId}`} data-testid="turn-changes">
        See or undo this turn's changes
      </a>
    </small>
  );
}

export function MessageItem(props: Props) {
  const { message, siteId, children } = props;
  const stopWords = message.metadata?.stopReason ? STOP_REASON_WORDS[message.metadata.stopReason] : undefined;
  return (
    <li className={message.role === "user" ? styles.user : styles.assistant} data-role={message.role}>
      <span className="visually-hidden">{message.role === "user" ? "You said:" : "Assistant:"}</span>
      {message.metadata?.offline ? <div className={styles.offlineLabel}>Offline reply</div> : null}
      <Parts {...props} />
      {children}
      {siteId ? <TurnLinks message={message} siteId={siteId} /> : null}
      {stopWords ? <small className="muted">{stopWords}</small> : null}
      {message.role === "assistant" ? (
        <BudgetUse label="This turn's own budget" figures={turnBudgetUse(message.metadata)} testId="turn-budget" />
      ) : null}
    </li>
  );
}
