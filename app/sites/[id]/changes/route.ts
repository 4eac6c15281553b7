import { listChangesForOwner } from "@/lib/changes/service";
import { json, route } from "@/lib/http/route";

export const GET = route({ auth: "session" }, async ({ params, session }) => {
  const changeSets = await listChangesForOwner({ userId: session.userId, siteId: params.id! });
  return json(200, { changeSets });
});
