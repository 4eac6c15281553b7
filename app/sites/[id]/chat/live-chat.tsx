"use client";
/**
 * The chat's live part, loaded beside the page's first chunks (chat-panel.tsx): `useChat`, the streamed replies (Markdown, tool cards),
 * approve/deny, stop and retry, and follow-the-reply scrolling. Screen readers hear status changes (working,
 * waiting for approval, finished) from one polite status line, not the stream token by token. The composer stays
 * in the page's first chunk (chat-panel.tsx) and drives this part through `ChatControls`.
 */
import { isToolUIPart } from "ai";
import { type ReactNode, useEffect, useRef, useState } from "react";
import type { Attachment, ChatMessage } from "@/lib/agent/chat-message";
import { useChatApproval } from "./approval-context";
import styles from "./chat.module.css";
import { hasVisibleParts, isShown, MessageItem } from "./message-item";
import { ChatRequestError } from "./transport";
import { type ChatSessionOptions, useChatSession } from "./use-chat-session";
import { useFollow } from "./use-follow";

/** What the composer needs from the live chat. */
export type ChatControls = {
  busy: boolean;
  waitingForApproval: boolean;
  canRetry: boolean;
  send(text: string, attachments?: Attachment[]): void;
  stop(): void;
  retry(): void;
};

export type LiveChatProps = ChatSessionOptions & {
  labels: Record<string, string>;
  onControls(controls: ChatControls): void;
};

const textOf = (message: ChatMessage | undefined) =>
  message?.parts.map((part) => (part.type === "text" ? part.text : "")).join("") ?? "";

const approvalsOf = (message: ChatMessage | undefined) =>
  message?.parts.flatMap((part) =>
    isToolUIPart(part) && part.state === "approval-requested" ? [part.approval.id] : [],
  ) ?? [];

function errorInWords(error: Error): string {
  if (error instanceof ChatRequestError) return error.message;
  if (error.name === "AbortError") return "Stopped.";
  return "The connection to Sitewright dropped before the reply finished. What was saved is shown above.";
}

function statusLineOf(state: {
  busy: boolean;
  waiting: boolean;
  canApprove: boolean;
  stopped: boolean;
  failed: boolean;
  empty: boolean;
}) {
  if (state.busy) return "The assistant is working on your request.";
  if (state.waiting && !state.canApprove) return "Your change waits for an approver on its review page.";
  if (state.waiting) return "The assistant is waiting for your approval.";
  if (state.stopped) return "Stopped.";
  if (state.failed) return "The reply ended with an error.";
  return state.empty ? "" : "The assistant's reply is complete.";
}

/** Hands the composer controls whose functions always call this render's `send`, `stop` and `retry`. */
function useControls(
  onControls: LiveChatProps["onControls"],
  state: Omit<ChatControls, "send" | "stop" | "retry">,
  actions: Pick<ChatControls, "send" | "stop" | "retry">,
) {
  const latest = useRef(actions);
  latest.current = actions;
  const { busy, waitingForApproval, canRetry } = state;
  useEffect(() => {
    onControls({
      busy,
      waitingForApproval,
      canRetry,
      send: (text, attachments) => latest.current.send(text, attachments),
      stop: () => latest.current.stop(),
      retry: () => latest.current.retry(),
    });
  }, [onControls, busy, waitingForApproval, canRetry]);
}

export default function LiveChat({ labels, onControls, ...options }: LiveChatProps) {
  const chat = useChatSession(options);
  const approval = useChatApproval();
  const { messages, status, error, streamError, unavailable } = chat;
  const [stopped, setStopped] = useState(false);
  const follow = useFollow(messages, status);

  const busy = status === "submitted" || status === "streaming";
  const last = messages.at(-1);
  const lastUser = messages.findLast((message) => message.role === "user");
  const lastUserText = textOf(lastUser);
  const lastUserFiles = lastUser?.parts.flatMap((part) => (part.type === "data-attachment" ? [part.data] : [])) ?? [];
  const pendingApprovals = busy ? [] : approvalsOf(last);
  const failed = status === "error" || Boolean(streamError);
  const canRetry =
    !busy &&
    (lastUserText !== "" || lastUserFiles.length > 0) &&
    (failed || stopped || Boolean(last?.metadata?.offline));
  const send = (text: string, attachments: Attachment[] = []) => {
    setStopped(false);
    follow.follow();
    chat.send(text, attachments);
  };
  const stop = () => {
    setStopped(true);
    void chat.stop();
  };
  useControls(
    onControls,
    { busy, waitingForApproval: pendingApprovals.length > 0, canRetry },
    {
      send,
      stop,
      retry: () => send(lastUserText, lastUserFiles),
    },
  );

  // Streaming, approvals and tool cards work from here on. The bench reads this mark as "live chat ready".
  useEffect(() => {
    performance.mark("sitewright:chat-live");
  }, []);

  const answer = (id: string, approved: boolean) => void chat.addToolApprovalResponse({ id, approved });
  const statusLine = statusLineOf({
    busy,
    waiting: pendingApprovals.length > 0,
    canApprove: approval.canApprove,
    stopped,
    failed,
    empty: messages.length === 0,
  });
  return (
    <>
      {unavailable ? <UnavailableBanner reason={unavailable} /> : null}
      <p className="visually-hidden" role="status" aria-live="polite" data-testid="chat-status">
        {statusLine}
      </p>
      <HistoryRegion follow={follow}>
        <MessageList
          messages={messages}
          labels={labels}
          siteId={options.siteId}
          pendingApprovals={pendingApprovals}
          onAnswer={answer}
          typing={busy && (last?.role !== "assistant" || !hasVisibleParts(last)) ? status : undefined}
        />
      </HistoryRegion>
      {!follow.following ? (
        <button type="button" className={`secondary ${styles.jump}`} onClick={follow.jumpToLatest}>
          Jump to latest ↓
        </button>
      ) : null}
      {streamError || error ? (
        <p className="error" role="alert" data-testid="chat-error">
          {streamError ?? (error ? errorInWords(error) : "")}
        </p>
      ) : null}
    </>
  );
}

/** The messages in a scroll region of their own: named and focusable, so a keyboard reaches it and scrolls it. */
function HistoryRegion({ follow, children }: { follow: ReturnType<typeof useFollow>; children: ReactNode }) {
  return (
    <section
      className={styles.scroller}
      ref={follow.list}
      onScroll={follow.onScroll}
      data-testid="messages"
      aria-label="Chat history"
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take focus to scroll by keyboard
      tabIndex={0}
    >
      {children}
    </section>
  );
}

function MessageList({
  messages,
  labels,
  siteId,
  pendingApprovals,
  onAnswer,
  typing,
}: {
  messages: ChatMessage[];
  labels: Record<string, string>;
  siteId: string;
  pendingApprovals: string[];
  onAnswer(id: string, approved: boolean): void;
  /** The chat's status while the typing indicator stands in for a reply with nothing to show yet. */
  typing?: string;
}) {
  const last = messages.at(-1);
  const approval = useChatApproval();
  return (
    <ol className={styles.messages} aria-label="Conversation">
      {messages.length === 0 ? (
        <li className="muted">Ask for a change, for example “Rename the About page to About us”.</li>
      ) : null}
      {messages.filter(isShown).map((message) => (
        <MessageItem key={message.id} message={message} labels={labels} siteId={siteId} onAnswer={onAnswer}>
          {message === last && pendingApprovals.length > 1 && approval.canApprove ? (
            <ApproveAll ids={pendingApprovals} onAnswer={onAnswer} />
          ) : null}
        </MessageItem>
      ))}
      {typing ? <Typing thinking={typing === "submitted"} /> : null}
    </ol>
  );
}

function UnavailableBanner({ reason }: { reason: string }) {
  return (
    <p className={`card ${styles.banner}`} role="alert" data-testid="assistant-unavailable">
      The assistant is unavailable: {reason} Replies marked “Offline reply” are placeholders; nothing is sent to your
      site.
    </p>
  );
}

function ApproveAll({ ids, onAnswer }: { ids: string[]; onAnswer(id: string, approved: boolean): void }) {
  return (
    <button
      type="button"
      className="danger"
      data-testid="approve-all"
      onClick={() => {
        for (const id of ids) onAnswer(id, true);
      }}
    >
      Approve all {ids.length} changes
    </button>
  );
}

function Typing({ thinking }: { thinking: boolean }) {
  return (
    <li className={`${styles.assistant} ${styles.typing}`} data-testid="typing">
      <span className={styles.dots} aria-hidden="true">
        <span />
        <span />
        <span />
      </span>
      <span className="muted">{thinking ? "Thinking…" : "Working…"}</span>
    </li>
  );
}
