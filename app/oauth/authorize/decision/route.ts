/** The owner's answer on the consent page (a same-origin form post, signed in): back to the client, or the page. */
import { route } from "@/lib/http/route";
import {
  AUTHORIZE_PARAMS,
  type AuthorizeParams,
  checkAuthorizeRequest,
  decideAuthorization,
} from "@/lib/oauth/authorize";

const seeOther = (location: string) =>
  new Response(null, { status: 303, headers: { location, "cache-control": "no-store" } });

export const POST = route({ auth: "session" }, async ({ request, session }) => {
  const form = await request.formData().catch(() => new FormData());
  const params: AuthorizeParams = {};
  for (const name of AUTHORIZE_PARAMS) {
    const value = form.get(name);
    if (typeof value === "string") params[name] = value;
  }
  const check = await checkAuthorizeRequest(params);
  if (!check.ok) {
    return check.redirect
      ? seeOther(check.redirect)
      : seeOther(`/oauth/authorize?${new URLSearchParams(params as Record<string, string>).toString()}`);
  }
  const decision = await decideAuthorization({
    userId: session.userId,
    request: check.request,
    approve: form.get("decision") === "approve",
    siteIds: form.getAll("site").filter((value): value is string => typeof value === "string"),
    access: form.get("access") === "read" ? "read" : "propose",
  });
  if ("redirect" in decision) return seeOther(decision.redirect);
  const again = new URLSearchParams(params as Record<string, string>);
  again.set("problem", decision.problem);
  return seeOther(`/oauth/authorize?${again.toString()}`);
});
