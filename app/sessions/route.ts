import { json, route } from "@/lib/http/route";
import { getSandboxManager } from "@/lib/sandbox";
import { createSessionSchema } from "./schema";

export const POST = route({ auth: "session", body: createSessionSchema }, async ({ body, session }) => {
  const sandbox = await getSandboxManager().createSession({ userId: session.userId, ...body });
  return json(201, { sandbox });
});
