import { json, route } from "@/lib/http/route";
import { showJobForOwner } from "@/lib/workflows/bulk-job";

export const GET = route({ auth: "session" }, async ({ params, session }) => {
  const job = await showJobForOwner({ userId: session.userId, siteId: params.id!, jobId: params.jobId! });
  return json(200, { job });
});
