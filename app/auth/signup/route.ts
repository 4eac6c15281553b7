import { registerAccount, signupSchema } from "@/lib/auth/accounts";
import { createSession } from "@/lib/auth/session";
import { json, route } from "@/lib/http/route";

export const POST = route({ auth: "none", body: signupSchema }, async ({ body, ip, setCookie }) => {
  const user = await registerAccount({ ...body, ip });
  setCookie(await createSession(user.id));
  return json(201, { user });
});
