import { authenticate, loginSchema } from "@/lib/auth/accounts";
import { createSession, destroySession } from "@/lib/auth/session";
import { json, route } from "@/lib/http/route";

export const POST = route({ auth: "none", body: loginSchema }, async ({ body, ip, sessionCookie, setCookie }) => {
  const user = await authenticate({ ...body, ip });
  await destroySession(sessionCookie); // a new id at login: a planted pre-login cookie is worth nothing
  setCookie(await createSession(user.id));
  return json(200, { user });
});
