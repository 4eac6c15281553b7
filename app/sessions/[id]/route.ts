import { json, noContent, route } from "@/lib/http/route";
import { getSandboxManager } from "@/lib/sandbox";

export const GET = route({ auth: "session" }, async ({ params, session }) => {
  const sandbox = await getSandboxManager().getSandbox({ userId: session.userId, id: params.id! });
  return json(200, { sandbox });
});

export const DELETE = route({ auth: "session" }, async ({ params, session }) => {
  await getSandboxManager().deleteSandbox({ userId: session.userId, id: params.id! });
  return noContent();
});
