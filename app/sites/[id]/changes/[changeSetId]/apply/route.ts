import { applyChangeSetForOwner } from "@/lib/workflows/change-set-actions";
import { json, route } from "@/lib/http/route";
import { actOnChangeSet } from "@/lib/teams/change-set-acts";
import { applySchema } from "../../schema";

export const POST = route({ auth: "session", body: applySchema }, async ({ body, params, session }) => {
  const ids = { siteId: params.id!, changeSetId: params.changeSetId! };
  const changeSet = await actOnChangeSet(session.user, ids, "apply", (request) =>
    applyChangeSetForOwner({ ...request, itemIds: body.itemIds, changeSetIds: body.changeSetIds }),
  );
  const { skipped, ...set } = changeSet;
  return json(200, skipped ? { changeSet: set, details: { skipped } } : { changeSet: set });
});
