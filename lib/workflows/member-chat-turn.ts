/**
 * The chat as a member's door (docs/teams.md): an editor or anyone above may chat and propose; answering an
 * approval request with "approve" needs the approve right, and is refused when the site asks for a second person
 * (the conversation is the person's own: its changes wait for someone else, on the change set's page). The turn
 * runs as the person, so its change set and items name who asked, and the chain records it.
 */
import { withActor } from "@/lib/audit/actor-context";
import { recordAuditSafely } from "@/lib/audit/chain";
import { type ChatTurnRequest, checkTurnCanStart, startChatTurn } from "./chat-turn";
import { actorOf, type Person, siteAccess } from "@/lib/teams/access";
import { secondPersonRequired } from "@/lib/teams/change-set-acts";

export async function startMemberChatTurn(person: Person, request: Omit<ChatTurnRequest, "userId">): Promise<Response> {
  // As for the owner alone: a message too long, or no model, is said before anything about the site.
  checkTurnCanStart(request.message);
  const approving = request.approvals?.some((answer) => answer.approved) ?? false;
  const { site } = await siteAccess({ userId: person.id, siteId: request.siteId }, approving ? "approve" : "propose");
  if (approving && site.requireSecondPerson) throw secondPersonRequired();
  const actor = actorOf(person);
  const response = await withActor(actor, () => startChatTurn({ ...request, userId: person.id }));
  const conversationId = response.headers.get("X-Conversation-Id") ?? request.conversationId;
  await recordAuditSafely({
    siteId: site.id,
    actor,
    action: request.approvals?.length ? (approving ? "approve" : "deny") : "turn",
    subject: { conversationId },
    details: request.approvals?.length
      ? { answers: request.approvals.map(({ id, approved }) => ({ id, approved })) }
      : { message: (request.message ?? "").slice(0, 500), mode: request.mode ?? null },
  });
  return response;
}
