import { showChangeSetPageForOwner } from "@/lib/workflows/change-set-actions";
import { json, route } from "@/lib/http/route";
import { itemsPageQuerySchema } from "../schema";

/** The set with a page of its items' diffs (each side capped; `truncated` items are whole at `items/:itemId`). */
export const GET = route({ auth: "session", query: itemsPageQuerySchema }, async ({ params, query, session }) =>
  json(
    200,
    await showChangeSetPageForOwner({
      userId: session.userId,
      siteId: params.id!,
      changeSetId: params.changeSetId!,
      cursor: query.cursor,
    }),
  ),
);
