"use server";

import { loadConversationMessages } from "@/lib/workflows/chat-turn";
import type { ChatMessage } from "@/lib/agent/chat-message";
import { currentSession } from "@/lib/auth/current";

/** The conversation as stored: the page shows it after a reply was cut off, so the live view says what was saved. */
export async function storedConversationAction(siteId: string, conversationId: string): Promise<ChatMessage[] | null> {
  const session = await currentSession();
  if (!session) return null;
  return (await loadConversationMessages({ userId: session.userId, siteId, conversationId })) ?? null;
}
