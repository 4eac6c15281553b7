import { showChangeItemForOwner } from "@/lib/workflows/change-set-actions";
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
