import { readJsonText } from "@/lib/http/body";
import { json, route } from "@/lib/http/route";
import { callFromAbility } from "@/lib/workflows/ability-call";

// A site's own signed call (docs/abilities.md): no cookie, so no cross-site check; the signature authenticates it.
export const POST = route({ auth: "none", csrf: false }, async ({ request }) => {
  const answer = await callFromAbility(request.headers, await readJsonText(request));
  return json(answer.status === "pending" ? 202 : 200, answer);
});
