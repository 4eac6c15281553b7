import { json, route } from "@/lib/http/route";
import { approveChangeSetForOwner } from "@/lib/workflows/approve-change-set";

export const POST = route({ auth: "session" }, async ({ params, session }) => {
  const changeSet = await approveChangeSetForOwner({
    userId: session.userId,
    siteId: params.id!,
    changeSetId: params.changeSetId!,
  });
  return json(200, { changeSet });
});
