import { json, route } from "@/lib/http/route";
import { uploadFromRequest } from "@/lib/media/uploads";

/** A file the owner attaches in the chat (multipart, field `file`): checked, cleaned and kept for this site. */
export const POST = route({ auth: "session" }, async ({ params, session, request }) => {
  const upload = await uploadFromRequest({ userId: session.userId, siteId: params.id!, request });
  return json(201, { upload });
});
