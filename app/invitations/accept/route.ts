import { json, route } from "@/lib/http/route";
import { acceptInvitation } from "@/lib/teams/members";
import { acceptSchema } from "./schema";

/** The invited person, logged in as the address the link was sent to, joins the site. */
export const POST = route({ auth: "session", body: acceptSchema }, async ({ body, session }) =>
  json(200, await acceptInvitation(session.user, body.token)),
);
