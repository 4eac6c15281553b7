import { discardChangeSetForOwner } from "@/lib/workflows/change-set-actions";
import { json, route } from "@/lib/http/route";
import { actOnChangeSet } from "@/lib/teams/change-set-acts";

export const POST = route({ auth: "session" }, async ({ params, session }) => {
  const ids = { siteId: params.id!, changeSetId: params.changeSetId! };
  const changeSet = await actOnChangeSet(session.user, ids, "discard", (request) => discardChangeSetForOwner(request));
  return json(200, { changeSet });
});
