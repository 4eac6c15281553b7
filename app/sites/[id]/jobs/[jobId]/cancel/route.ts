import { json, route } from "@/lib/http/route";
import { cancelJobForOwner } from "@/lib/workflows/bulk-job";

export const POST = route({ auth: "session" }, async ({ params, session }) => {
  const job = await cancelJobForOwner({ userId: session.userId, siteId: params.id!, jobId: params.jobId! });
  return json(200, { job });
});
