import { listChangesForOwner } from "@/lib/workflows/change-set-actions";
import { json, route } from "@/lib/http/route";
import { siteAccess } from "@/lib/teams/access";
import { withActivities } from "@/lib/teams/change-set-acts";
import { listQuerySchema } from "./schema";

/** Summaries, newest first, a page at a time (every member's): the diffs come from the change set's own route. */
export const GET = route({ auth: "session", query: listQuerySchema }, async ({ params, query, session }) => {
  const { site } = await siteAccess({ userId: session.userId, siteId: params.id! }, "read");
  const list = await listChangesForOwner({ userId: site.userId, siteId: site.id, ...query });
  return json(200, { ...list, changeSets: await withActivities(list.changeSets) });
});
