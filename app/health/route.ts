import { healthReport } from "@/lib/health";
import { json, route } from "@/lib/http/route";

export const GET = route({ auth: "none" }, async () => {
  const { healthy, body } = await healthReport();
  return json(healthy ? 200 : 503, body);
});
