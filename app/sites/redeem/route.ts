import { json, route } from "@/lib/http/route";
import { redeemPairing, redeemSchema } from "@/lib/sites/pairing";

// The plugin calls this from the site's server: no cookie, so no cross-site check.
export const POST = route({ auth: "none", csrf: false, body: redeemSchema }, async ({ body, ip }) => {
  const result = await redeemPairing({ ...body, ip });
  return json(200, result);
});
