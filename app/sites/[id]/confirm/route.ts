import { json, route } from "@/lib/http/route";
import { confirmSite } from "@/lib/sites/sites";

export const POST = route({ auth: "session" }, async ({ params, session }) => {
  const result = await confirmSite({ userId: session.userId, siteId: params.id! });
  return json(200, result);
});
