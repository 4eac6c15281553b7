import { json, route } from "@/lib/http/route";
import { itemsSchema } from "../../schema";
import { actOnChangeSet } from "@/lib/teams/change-set-acts";
import { denyChangeSetForOwner } from "@/lib/workflows/approve-change-set";

export const POST = route(
  { auth: "session", body: itemsSchema, optionalBody: true },
  async ({ body, params, session }) => {
    const ids = { siteId: params.id!, changeSetId: params.changeSetId! };
    const changeSet = await actOnChangeSet(session.user, ids, "deny", (request) =>
      denyChangeSetForOwner({ ...request, itemIds: body.itemIds, upTo: body.upTo }),
    );
    return json(200, { changeSet });
  },
);
