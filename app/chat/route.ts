import { route } from "@/lib/http/route";
import { startChatTurn } from "@/lib/workflows/chat-turn";
import { chatSchema } from "./schema";

/** The agent: answers with the AI SDK UI message stream (text/event-stream). */
export const POST = route({ auth: "session", body: chatSchema }, async ({ body, session, request }) =>
  startChatTurn({ userId: session.userId, ...body, signal: request.signal }),
);
