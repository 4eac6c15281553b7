import { discardChangeSetForOwner } from "@/lib/workflows/change-set-actions";
import { json, route } from "@/lib/http/route";

export const POST = route({ auth: "session" }, async ({ params, session }) => {
  const changeSet = await discardChangeSetForOwner({
    userId: session.userId,
    siteId: params.id!,
    changeSetId: params.changeSetId!,
  });
  return json(200, { changeSet });
});
