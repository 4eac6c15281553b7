import { editQueueItemForOwner, showChangeItemForOwner } from "@/lib/workflows/change-set-actions";
import { itemEditSchema } from "../../../schema";
import { json, route } from "@/lib/http/route";
import { actOnChangeSet } from "@/lib/teams/change-set-acts";

/** One item with its `before`/`after` whole, for a diff the set's page had to cut. */
export const GET = route({ auth: "session" }, async ({ params, session }) => {
  const ids = { siteId: params.id!, changeSetId: params.changeSetId! };
  const item = await actOnChangeSet(session.user, ids, "show", (request) =>
    showChangeItemForOwner({ ...request, itemId: params.itemId! }),
  );
  return json(200, { item });
});

/** A job's waiting item, reworded by the owner before it is written (`409 not_applicable` once it is). */
export const PATCH = route({ auth: "session", body: itemEditSchema }, async ({ body, params, session }) => {
  const ids = { siteId: params.id!, changeSetId: params.changeSetId! };
  const item = await actOnChangeSet(session.user, ids, "edit", (request) =>
    editQueueItemForOwner({ ...request, itemId: params.itemId!, after: body.after }),
  );
  return json(200, { item });
});
