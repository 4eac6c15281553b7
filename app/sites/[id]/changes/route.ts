import { listChangesForOwner } from "@/lib/workflows/change-set-actions";
import { json, route } from "@/lib/http/route";
import { listQuerySchema } from "./schema";

/** Summaries, newest first, a page at a time: the diffs come from the change set's own route. */
export const GET = route({ auth: "session", query: listQuerySchema }, async ({ params, query, session }) =>
  json(200, await listChangesForOwner({ userId: session.userId, siteId: params.id!, ...query })),
);
