import { json, route } from "@/lib/http/route";
import { getSandboxManager } from "@/lib/sandbox";
import { createSandboxSchema } from "./schema";

export const POST = route({ auth: "session", body: createSandboxSchema }, async ({ body, session }) => {
  const sandbox = await getSandboxManager().createSandbox({ userId: session.userId, ...body });
  return json(201, { sandbox });
});
