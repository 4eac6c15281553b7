import { showChangeSetPageForOwner } from "@/lib/workflows/change-set-actions";
import { json, route } from "@/lib/http/route";
import { actOnChangeSet, withActivity } from "@/lib/teams/change-set-acts";
import { itemsPageQuerySchema } from "../schema";

/** The set with a page of its items' diffs (each side capped; `truncated` items are whole at `items/:itemId`). */
export const GET = route({ auth: "session", query: itemsPageQuerySchema }, async ({ params, query, session }) => {
  const ids = { siteId: params.id!, changeSetId: params.changeSetId! };
  const page = await actOnChangeSet(session.user, ids, "show", (request) =>
    showChangeSetPageForOwner({ ...request, cursor: query.cursor }),
  );
  return json(200, { ...page, changeSet: await withActivity(page.changeSet) });
});
