import { json, noContent, route } from "@/lib/http/route";
import { changeMemberRole, removeMember } from "@/lib/teams/members";
import { memberRoleSchema } from "../../schema";

/** The owner changes a member's role at once (what they held for the site ends). */
export const PATCH = route({ auth: "session", body: memberRoleSchema }, async ({ body, params, session }) => {
  const member = await changeMemberRole(session.user, { siteId: params.id!, memberId: params.memberId!, ...body });
  return json(200, { member });
});

export const DELETE = route({ auth: "session" }, async ({ params, session }) => {
  await removeMember(session.user, { siteId: params.id!, memberId: params.memberId! });
  return noContent();
});
