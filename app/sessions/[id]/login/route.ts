import { json, route } from "@/lib/http/route";
import { getSandboxManager } from "@/lib/sandbox";

/** A one-time link that opens the sandbox's wp-admin signed in (the browser navigates to `url`). */
export const POST = route({ auth: "session" }, async ({ params, session }) => {
  const login = await getSandboxManager().createLoginLink({ userId: session.userId, id: params.id! });
  return json(200, { login });
});
