"use client";
/**
 * The site's conversations, from the server, plus the one a new chat just started (the chat panel announces it
 * with a `sitewright:conversation` event), so it appears without a reload.
 */
import Link from "next/link";
import { useEffect, useState } from "react";
import type { ConversationSummary } from "@/lib/workflows/chat-turn";
import styles from "./chat.module.css";

export const CONVERSATION_STARTED = "sitewright:conversation";
export type ConversationStarted = { id: string; title: string };

export function ConversationList({
  base,
  initial,
  currentId,
  times,
}: {
  base: string;
  initial: ConversationSummary[];
  currentId?: string;
  /** "5 minutes ago" per conversation id, worded on the server. */
  times: Record<string, string>;
}) {
  const [started, setStarted] = useState<ConversationStarted>();
  useEffect(() => {
    const listen = (event: Event) => {
      if (event instanceof CustomEvent && typeof event.detail?.id === "string")
        setStarted({ id: event.detail.id, title: String(event.detail.title ?? "") });
    };
    window.addEventListener(CONVERSATION_STARTED, listen);
    return () => window.removeEventListener(CONVERSATION_STARTED, listen);
  }, []);
  const fresh = started && !initial.some((c) => c.id === started.id) ? started : undefined;
  const selected = fresh?.id ?? currentId;
  if (!fresh && initial.length === 0) return <p className="muted">No conversations yet.</p>;
  return (
    <ul data-testid="conversation-list">
      {fresh ? (
        <li>
          <Link href={`${base}?c=${fresh.id}`} aria-current="page">
            <span className={styles.conversationTitle}>{fresh.title || "New conversation"}</span>
            <small className="muted">just now</small>
          </Link>
        </li>
      ) : null}
      {initial.map((c) => (
        <li key={c.id}>
          <Link href={`${base}?c=${c.id}`} aria-current={c.id === selected ? "page" : undefined}>
            <span className={styles.conversationTitle}>{c.title}</span>
            <small className="muted">
              <time dateTime={c.updatedAt}>{times[c.id]}</time>
            </small>
          </Link>
        </li>
      ))}
    </ul>
  );
}
