import { undoChangeSetForOwner } from "@/lib/workflows/change-set-actions";
import { json, route } from "@/lib/http/route";
import { actOnChangeSet } from "@/lib/teams/change-set-acts";
import { itemsSchema } from "../../schema";

export const POST = route({ auth: "session", body: itemsSchema }, async ({ body, params, session }) => {
  const ids = { siteId: params.id!, changeSetId: params.changeSetId! };
  const changeSet = await actOnChangeSet(session.user, ids, "undo", (request) =>
    undoChangeSetForOwner({ ...request, itemIds: body.itemIds }),
  );
  const { skipped, ...set } = changeSet;
  return json(200, skipped ? { changeSet: set, details: { skipped } } : { changeSet: set });
});
