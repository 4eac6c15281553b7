"use client";
/**
 * The chat. The server renders all of it; the browser first runs only this shell and the composer, so the
 * composer answers at once. The live part (`useChat`, streaming, Markdown, tool cards: live-chat.tsx) loads with
 * `next/dynamic`: its scripts are low-priority preloads in the page's head, and it hydrates in its own Suspense
 * boundary when they arrive. A message sent before that waits for it and then goes.
 */
import dynamic from "next/dynamic";
import { useEffect, useState } from "react";
import type { Attachment, ChatMessage } from "@/lib/agent/chat-message";
import styles from "./chat.module.css";
import { Composer } from "./composer";
import { type ChatApproval, ChatApprovalContext } from "./approval-context";
import type { ChatControls } from "./live-chat";
import { type ChatMode, ModeChoice } from "./mode-choice";

type Props = {
  siteId: string;
  conversationId?: string;
  initialMessages: ChatMessage[];
  agentConfigured: boolean;
  labels: Record<string, string>;
  /** Sandboxes are on: offer sandbox mode (the default) next to live. */
  sandboxesEnabled?: boolean;
  /** Whether the person may approve their own turns' changes here (a member's role, the second-person rule). */
  approval?: ChatApproval;
};

// `loading` gives the live part a Suspense boundary of its own, so the shell hydrates without waiting for it.
const LiveChat = dynamic(() => import("./live-chat"), { loading: () => null });

/** Sends through the live chat, or holds the message until it has loaded. */
function useQueuedSend(controls: ChatControls | undefined) {
  const [queued, setQueued] = useState<{ text: string; attachments: Attachment[] }>();
  useEffect(() => {
    if (!controls || queued === undefined) return;
    controls.send(queued.text, queued.attachments);
    setQueued(undefined);
  }, [controls, queued]);
  const send = (text: string, attachments: Attachment[]) =>
    controls ? controls.send(text, attachments) : setQueued({ text, attachments });
  const stop = () => (controls ? controls.stop() : setQueued(undefined));
  return { send, stop, queued: queued !== undefined };
}

export function ChatPanel({ labels, sandboxesEnabled, approval = { canApprove: true }, ...session }: Props) {
  const [mode, setMode] = useState<ChatMode>(sandboxesEnabled ? "sandbox" : "live");
  const [controls, setControls] = useState<ChatControls>();
  const { send, stop, queued } = useQueuedSend(controls);
  // Hydrated: the composer answers from here on (a message sent now goes once the live part is in). The bench
  // reads this mark as the page's time to interactive.
  useEffect(() => {
    performance.mark("sitewright:chat-interactive");
  }, []);
  return (
    <section className={styles.chat} data-testid="chat" data-ready={controls ? true : undefined} aria-label="Chat">
      <ModeChoice sandboxesEnabled={sandboxesEnabled} mode={mode} onChange={setMode} />
      <ChatApprovalContext.Provider value={approval}>
        <LiveChat {...session} mode={mode} labels={labels} onControls={setControls} />
        <Composer
          siteId={session.siteId}
          controls={controls}
          busy={controls ? controls.busy : queued}
          onSend={send}
          onStop={stop}
        />
      </ChatApprovalContext.Provider>
    </section>
  );
}
