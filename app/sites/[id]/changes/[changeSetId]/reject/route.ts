import { json, route } from "@/lib/http/route";
import { rejectQueueItemsForOwner } from "@/lib/workflows/change-set-actions";
import { itemsSchema } from "../../schema";

/** A bulk job's queue: these waiting items (all when none are named) are never written. */
export const POST = route({ auth: "session", body: itemsSchema }, async ({ body, params, session }) => {
  const changeSet = await rejectQueueItemsForOwner({
    userId: session.userId,
    siteId: params.id!,
    changeSetId: params.changeSetId!,
    itemIds: body.itemIds,
  });
  return json(200, { changeSet });
});
