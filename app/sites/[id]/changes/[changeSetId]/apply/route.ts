import { applyChangeSetForOwner } from "@/lib/workflows/change-set-actions";
import { json, route } from "@/lib/http/route";
import { applySchema } from "../../schema";

export const POST = route({ auth: "session", body: applySchema }, async ({ body, params, session }) => {
  const changeSet = await applyChangeSetForOwner({
    userId: session.userId,
    siteId: params.id!,
    changeSetId: params.changeSetId!,
    itemIds: body.itemIds,
    upTo: body.upTo,
    changeSetIds: body.changeSetIds,
  });
  const { skipped, ...set } = changeSet;
  return json(200, skipped ? { changeSet: set, details: { skipped } } : { changeSet: set });
});
