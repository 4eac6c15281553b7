import { editQueueItemForOwner, showChangeItemForOwner } from "@/lib/workflows/change-set-actions";
import { itemEditSchema } from "../../../schema";
import { json, route } from "@/lib/http/route";

/** One item with its `before`/`after` whole, for a diff the set's page had to cut. */
export const GET = route({ auth: "session" }, async ({ params, session }) => {
  const item = await showChangeItemForOwner({
    userId: session.userId,
    siteId: params.id!,
    changeSetId: params.changeSetId!,
    itemId: params.itemId!,
  });
  return json(200, { item });
});

/** A job's waiting item, reworded by the owner before it is written (`409 not_applicable` once it is). */
export const PATCH = route({ auth: "session", body: itemEditSchema }, async ({ body, params, session }) => {
  const item = await editQueueItemForOwner({
    userId: session.userId,
    siteId: params.id!,
    changeSetId: params.changeSetId!,
    itemId: params.itemId!,
    after: body.after,
  });
  return json(200, { item });
});
