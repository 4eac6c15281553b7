import { z } from "zod";
import { route } from "@/lib/http/route";
import { siteImageBody, thumbnailForOwner } from "@/lib/media/site-images";

const params = z.object({ id: z.uuid(), attachmentId: z.string().regex(/^[1-9][0-9]{0,11}$/) });

/** An attachment's thumbnail from the owner's site, through us (the review queue's pictures; docs/media.md). */
export const GET = route({ auth: "session", params }, async ({ params, session }) =>
  siteImageBody(
    await thumbnailForOwner({ userId: session.userId, siteId: params.id!, attachmentId: Number(params.attachmentId) }),
  ),
);
