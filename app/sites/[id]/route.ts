import { json, noContent, route } from "@/lib/http/route";
import { publicSite } from "@/lib/sites/site-view";
import { disconnectSite, getOwnedSiteFollowingRepair } from "@/lib/sites/sites";

export const GET = route({ auth: "session" }, async ({ params, session }) => {
  const site = await getOwnedSiteFollowingRepair({ userId: session.userId, siteId: params.id! });
  return json(200, { site: publicSite(site) });
});

export const DELETE = route({ auth: "session" }, async ({ params, session }) => {
  await disconnectSite({ userId: session.userId, siteId: params.id! });
  return noContent();
});
