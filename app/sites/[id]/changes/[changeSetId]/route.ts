import { showChangeSetForOwner } from "@/lib/changes/service";
import { json, route } from "@/lib/http/route";

export const GET = route({ auth: "session" }, async ({ params, session }) => {
  const changeSet = await showChangeSetForOwner({
    userId: session.userId,
    siteId: params.id!,
    changeSetId: params.changeSetId!,
  });
  return json(200, { changeSet });
});
