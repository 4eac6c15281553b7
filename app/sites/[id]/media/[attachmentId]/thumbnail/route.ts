import { z } from "zod";
import { route } from "@/lib/http/route";
import { siteImageBody, siteThumbnail } from "@/lib/media/site-images";
import { siteAccess } from "@/lib/teams/access";

const params = z.object({ id: z.uuid(), attachmentId: z.string().regex(/^[1-9][0-9]{0,11}$/) });

/** An attachment's thumbnail from the site, through us (the review queue's pictures; docs/media.md), to its readers. */
export const GET = route({ auth: "session", params }, async ({ params, session }) => {
  const { site } = await siteAccess({ userId: session.userId, siteId: params.id! }, "read");
  return siteImageBody(await siteThumbnail(site, Number(params.attachmentId)));
});
