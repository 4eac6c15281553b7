import { json, route } from "@/lib/http/route";
import { listSites } from "@/lib/sites/sites";

export const GET = route({ auth: "session" }, async ({ session }) =>
  json(200, { sites: await listSites({ userId: session.userId }) }),
);
