import { undoChangeSetForOwner } from "@/lib/workflows/change-set-actions";
import { json, route } from "@/lib/http/route";
import { itemsSchema } from "../../schema";

export const POST = route({ auth: "session", body: itemsSchema }, async ({ body, params, session }) => {
  const changeSet = await undoChangeSetForOwner({
    userId: session.userId,
    siteId: params.id!,
    changeSetId: params.changeSetId!,
    itemIds: body.itemIds,
    upTo: body.upTo,
  });
  const { skipped, ...set } = changeSet;
  return json(200, skipped ? { changeSet: set, details: { skipped } } : { changeSet: set });
});
