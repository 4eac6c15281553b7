import { json, route } from "@/lib/http/route";
import { cancelJobForOwner } from "@/lib/workflows/bulk-job";
import { actOnJob } from "@/lib/workflows/member-jobs";

/** Whoever started the job, or anyone with the approve right, stops it (docs/teams.md). */
export const POST = route({ auth: "session" }, async ({ params, session }) => {
  const ids = { siteId: params.id!, jobId: params.jobId! };
  const job = await actOnJob(session.user, ids, "cancel", (request) => cancelJobForOwner(request));
  return json(200, { job });
});
