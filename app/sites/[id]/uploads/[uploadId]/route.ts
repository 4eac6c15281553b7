import { route } from "@/lib/http/route";
import { uploadBody } from "@/lib/media/serve";
import { uploadForOwner } from "@/lib/media/uploads";

/** The upload's bytes, to its owner only: the attachment chip's thumbnail and the approval card's preview. */
export const GET = route({ auth: "session" }, async ({ params, session }) =>
  uploadBody(await uploadForOwner({ userId: session.userId, siteId: params.id!, uploadId: params.uploadId! })),
);
