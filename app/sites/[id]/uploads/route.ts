import { json, route } from "@/lib/http/route";
import { uploadFromRequest } from "@/lib/media/uploads";
import { siteAccess } from "@/lib/teams/access";

/**
 * A file attached in the chat (multipart, field `file`): checked, cleaned and kept for this site. Whoever may
 * propose on the site may attach (docs/teams.md); the check comes before the body is read.
 */
export const POST = route({ auth: "session" }, async ({ params, session, request }) => {
  const { site } = await siteAccess({ userId: session.userId, siteId: params.id! }, "propose");
  const upload = await uploadFromRequest({ userId: session.userId, siteId: site.id, request });
  return json(201, { upload });
});
