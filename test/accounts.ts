/** Signs a user up through the real route and returns their cookie. */
import { POST as signup } from "@/app/auth/signup/route";
import { call } from "./http";

let counter = 0;
export async function newUser(prefix = "user") {
  const email = `${prefix}${Date.now().toString(36)}${counter++}@example.com`;
  const res = await call(signup, { body: { email, password: "a long and unusual passphrase 7" } });
  if (res.status !== 201) throw new Error(`sign-up failed: ${res.status} ${res.text}`);
  return { email, cookie: res.cookie!, id: res.json.user.id as string };
}
