"use client";
/** The message box with Send (or Stop while a reply streams) and Retry: in the page's first chunk, so it answers at once. */
import { type FormEvent, type KeyboardEvent, useState } from "react";
import { MAX_MESSAGE_BYTES } from "@/lib/agent/chat-constants";
import styles from "./chat.module.css";
import type { ChatControls } from "./live-chat";

const encoder = new TextEncoder();

function sizeNote(bytes: number): string {
  if (bytes > MAX_MESSAGE_BYTES) return `Too long: ${bytes} of ${MAX_MESSAGE_BYTES} bytes.`;
  return bytes > MAX_MESSAGE_BYTES * 0.8 ? `${bytes} of ${MAX_MESSAGE_BYTES} bytes` : "";
}

export function Composer({
  controls,
  busy,
  onSend,
  onStop,
}: {
  /** Undefined until the live chat has loaded. */
  controls?: ChatControls;
  busy: boolean;
  onSend(text: string): void;
  /** Stops the reply, or cancels a message still waiting for the live chat. */
  onStop(): void;
}) {
  const [input, setInput] = useState("");
  const bytes = encoder.encode(input).length;
  const tooLong = bytes > MAX_MESSAGE_BYTES;
  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    const text = input.trim();
    if (!text || tooLong || busy) return;
    onSend(text);
    setInput("");
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey) submit(event);
  };
  return (
    <form className={styles.composer} onSubmit={submit}>
      <textarea
        aria-label="Message"
        value={input}
        rows={3}
        placeholder={
          controls?.waitingForApproval
            ? "Approve or deny above, or write a new message…"
            : "What should change on your site?"
        }
        onChange={(event) => setInput(event.target.value)}
        onKeyDown={onKeyDown}
      />
      <div className={styles.actions}>
        {busy ? (
          <button type="button" className="secondary" onClick={onStop}>
            Stop
          </button>
        ) : (
          <button type="submit" disabled={!input.trim() || tooLong}>
            Send
          </button>
        )}
        {controls?.canRetry ? (
          <button type="button" className="secondary" onClick={() => controls.retry()}>
            Retry
          </button>
        ) : null}
        <small className={tooLong ? "error" : "muted"}>{sizeNote(bytes)}</small>
      </div>
    </form>
  );
}
