import { applyChangeSetForOwner } from "@/lib/changes/service";
import { json, route } from "@/lib/http/route";
import { itemsSchema } from "../../schema";

export const POST = route({ auth: "session", body: itemsSchema }, async ({ body, params, session }) => {
  const changeSet = await applyChangeSetForOwner({
    userId: session.userId,
    siteId: params.id!,
    changeSetId: params.changeSetId!,
    itemIds: body.itemIds,
  });
  return json(200, { changeSet });
});
