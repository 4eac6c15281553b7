import { route } from "@/lib/http/route";
import { uploadBody } from "@/lib/media/serve";
import { uploadForReader } from "@/lib/media/uploads";
import { siteAccess } from "@/lib/teams/access";

/**
 * The upload's bytes: the attachment chip's thumbnail (the uploader's own) and the change card's preview (anyone who
 * may read the site, once a change used it; docs/teams.md).
 */
export const GET = route({ auth: "session" }, async ({ params, session }) => {
  const { site } = await siteAccess({ userId: session.userId, siteId: params.id! }, "read");
  return uploadBody(await uploadForReader({ userId: session.userId, siteId: site.id, uploadId: params.uploadId! }));
});
