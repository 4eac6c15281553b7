import { json, route } from "@/lib/http/route";
import { confirmSite } from "@/lib/sites/sites";
import { siteAccess } from "@/lib/teams/access";

/** The last step of pairing: the owner's alone (a member gets `403 forbidden`, anyone else `404`). */
export const POST = route({ auth: "session" }, async ({ params, session }) => {
  await siteAccess({ userId: session.userId, siteId: params.id! }, "manage");
  const result = await confirmSite({ userId: session.userId, siteId: params.id! });
  return json(200, result);
});
