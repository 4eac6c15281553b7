"use client";
/**
 * The message box with Send (or Stop while a reply streams), Retry, and Attach (a file picker; files may also be
 * dropped on the box): in the page's first chunk, so it answers at once.
 */
import { type DragEvent, type FormEvent, type KeyboardEvent, useRef, useState } from "react";
import type { Attachment } from "@/lib/agent/chat-message";
import { MAX_MESSAGE_BYTES } from "@/lib/agent/chat-constants";
import { useChatApproval } from "./approval-context";
import { ATTACH_ACCEPT, AttachmentChip, useAttachments } from "./attachments";
import styles from "./chat.module.css";
import type { ChatControls } from "./live-chat";

const encoder = new TextEncoder();

function sizeNote(bytes: number): string {
  if (bytes > MAX_MESSAGE_BYTES) return `Too long: ${bytes} of ${MAX_MESSAGE_BYTES} bytes.`;
  return bytes > MAX_MESSAGE_BYTES * 0.8 ? `${bytes} of ${MAX_MESSAGE_BYTES} bytes` : "";
}

/** Drag and drop of files onto the composer. */
function useDrop(onFiles: (files: FileList) => void) {
  const [over, setOver] = useState(false);
  const hasFiles = (event: DragEvent) => event.dataTransfer.types.includes("Files");
  return {
    over,
    onDragOver: (event: DragEvent) => {
      if (!hasFiles(event)) return;
      event.preventDefault();
      setOver(true);
    },
    onDragLeave: () => setOver(false),
    onDrop: (event: DragEvent) => {
      if (!hasFiles(event)) return;
      event.preventDefault();
      setOver(false);
      onFiles(event.dataTransfer.files);
    },
  };
}

/** The file picker, behind an ordinary button. */
function AttachButton({ onFiles }: { onFiles(files: FileList): void }) {
  const picker = useRef<HTMLInputElement>(null);
  return (
    <>
      <button type="button" className="secondary" onClick={() => picker.current?.click()}>
        Attach
      </button>
      <input
        ref={picker}
        type="file"
        accept={ATTACH_ACCEPT}
        multiple
        hidden
        aria-label="Attach files"
        data-testid="attach-input"
        onChange={(event) => {
          if (event.target.files) onFiles(event.target.files);
          event.target.value = "";
        }}
      />
    </>
  );
}

/** What the message box says: while a change waits, who acts on it (this person, or an approver on its review page). */
function placeholderOf(waiting: boolean, canApprove: boolean): string {
  if (!waiting) return "What should change on your site? Drop images here to attach them.";
  return canApprove
    ? "Approve or deny above, or write a new message…"
    : "Your change waits for an approver; write a new message…";
}

export function Composer({
  siteId,
  controls,
  busy,
  onSend,
  onStop,
}: {
  siteId: string;
  /** Undefined until the live chat has loaded. */
  controls?: ChatControls;
  busy: boolean;
  onSend(text: string, attachments: Attachment[]): void;
  /** Stops the reply, or cancels a message still waiting for the live chat. */
  onStop(): void;
}) {
  const [input, setInput] = useState("");
  const approval = useChatApproval();
  const files = useAttachments(siteId);
  const { over, ...drop } = useDrop(files.add);
  const bytes = encoder.encode(input).length;
  const tooLong = bytes > MAX_MESSAGE_BYTES;
  const empty = !input.trim() && files.ready.length === 0;
  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    if (empty || tooLong || busy || files.uploading) return;
    onSend(input.trim(), files.ready);
    setInput("");
    files.clear();
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey) submit(event);
  };
  return (
    <form className={`${styles.composer} ${over ? styles.dropping : ""}`} onSubmit={submit} {...drop}>
      <textarea
        aria-label="Message"
        value={input}
        rows={3}
        placeholder={placeholderOf(controls?.waitingForApproval === true, approval.canApprove)}
        onChange={(event) => setInput(event.target.value)}
        onKeyDown={onKeyDown}
      />
      {files.chips.length > 0 ? (
        <ul className={styles.attachments} aria-label="Attachments">
          {files.chips.map((chip) => (
            <AttachmentChip key={chip.key} siteId={siteId} attachment={chip} onRemove={() => files.remove(chip.key)} />
          ))}
        </ul>
      ) : null}
      <div className={styles.actions}>
        {busy ? (
          <button type="button" className="secondary" onClick={onStop}>
            Stop
          </button>
        ) : (
          <button type="submit" disabled={empty || tooLong || files.uploading}>
            Send
          </button>
        )}
        <AttachButton onFiles={files.add} />
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
