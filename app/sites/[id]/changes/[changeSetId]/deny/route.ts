import { json, route } from "@/lib/http/route";
import { denyChangeSetForOwner } from "@/lib/workflows/approve-change-set";

export const POST = route({ auth: "session" }, async ({ params, session }) => {
  const changeSet = await denyChangeSetForOwner({
    userId: session.userId,
    siteId: params.id!,
    changeSetId: params.changeSetId!,
  });
  return json(200, { changeSet });
});
