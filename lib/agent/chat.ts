/**
 * The chat turn moved to lib/workflows/chat-turn.ts (it combines the agent, sandboxes, change sets and sites).
 * This re-export keeps the chat page's imports working until they name the new home.
 */
export { type ConversationSummary, loadChatPage, loadConversationMessages } from "@/lib/workflows/chat-turn";
