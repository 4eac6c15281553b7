import { json, route } from "@/lib/http/route";
import { inviteMember, listTeam } from "@/lib/teams/members";
import { inviteSchema } from "../schema";

/** The site's members (every member may see who else works on it); the owner also sees open invitations. */
export const GET = route({ auth: "session" }, async ({ params, session }) =>
  json(200, await listTeam(session.user, params.id!)),
);

/** The owner invites someone by address; the mail carries a single-use link valid 7 days. */
export const POST = route({ auth: "session", body: inviteSchema }, async ({ body, params, session }) =>
  json(201, { invitation: await inviteMember(session.user, { siteId: params.id!, ...body }) }),
);
