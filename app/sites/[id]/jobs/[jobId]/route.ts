import { json, route } from "@/lib/http/route";
import { showJobForOwner } from "@/lib/workflows/bulk-job";
import { actOnJob } from "@/lib/workflows/member-jobs";

/** A job of the site, to anyone who may read it (docs/teams.md). */
export const GET = route({ auth: "session" }, async ({ params, session }) => {
  const ids = { siteId: params.id!, jobId: params.jobId! };
  const job = await actOnJob(session.user, ids, "show", (request) => showJobForOwner(request));
  return json(200, { job });
});
