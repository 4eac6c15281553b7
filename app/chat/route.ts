import { route } from "@/lib/http/route";
import { startMemberChatTurn } from "@/lib/workflows/member-chat-turn";
import { chatSchema } from "./schema";

/** The agent: answers with the AI SDK UI message stream (text/event-stream). */
export const POST = route({ auth: "session", body: chatSchema }, async ({ body, session, request }) =>
  startMemberChatTurn(session.user, { ...body, signal: request.signal }),
);
