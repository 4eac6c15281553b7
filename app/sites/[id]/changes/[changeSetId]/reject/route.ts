import { json, route } from "@/lib/http/route";
import { actOnChangeSet } from "@/lib/teams/change-set-acts";
import { rejectQueueItemsForOwner } from "@/lib/workflows/change-set-actions";
import { itemsSchema } from "../../schema";

/** A bulk job's queue: these waiting items (all when none are named) are never written. */
export const POST = route({ auth: "session", body: itemsSchema }, async ({ body, params, session }) => {
  const ids = { siteId: params.id!, changeSetId: params.changeSetId! };
  const changeSet = await actOnChangeSet(session.user, ids, "reject", (request) =>
    rejectQueueItemsForOwner({ ...request, itemIds: body.itemIds }),
  );
  return json(200, { changeSet });
});
