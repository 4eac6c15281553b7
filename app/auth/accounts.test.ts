import { describe, expect, it } from "vitest";
import { advanceClockForTests } from "@/lib/clock";
import { findUserByEmail } from "@/lib/db/queries";
import { useTestDatabase } from "@/lib/db/testing";
import { resetEnvForTests } from "@/lib/env";
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from "@/lib/auth/session";
import { call } from "@/test/http";
import { POST as signup } from "./signup/route";
import { POST as login } from "./login/route";
import { POST as logout } from "./logout/route";
import { GET as me } from "./me/route";

useTestDatabase();

let counter = 0;
const uniqueEmail = () => `user${Date.now()}_${counter++}@example.com`;
const PASSWORD = "a long and unusual passphrase 7";

async function signedUp(email = uniqueEmail()) {
  const res = await call(signup, { body: { email, password: PASSWORD, name: "Ada" } });
  expect(res.status).toBe(201);
  return { email, cookie: res.cookie!, res };
}

describe("sign-up", () => {
  it("creates the account, returns the user and logs them in", async () => {
    const email = uniqueEmail();
    const { res, cookie } = await signedUp(email);
    expect(res.json.user).toEqual({ id: expect.any(String), email, name: "Ada" });
    const cookieHeader = res.setCookie[0]!;
    expect(cookieHeader).toMatch(/^sw_session=/);
    expect(cookieHeader).toMatch(/HttpOnly/);
    expect(cookieHeader).toMatch(/SameSite=Lax/);
    expect(cookieHeader).toMatch(/Path=\//);
    const whoami = await call(me, { cookie });
    expect(whoami.status).toBe(200);
    expect(whoami.json.user.email).toBe(email);
  });

  it("keeps only a salted scrypt hash of the password", async () => {
    const { email } = await signedUp();
    const user = await findUserByEmail({ email });
    expect(user!.passwordHash).not.toContain(PASSWORD);
    expect(user!.passwordHash).toMatch(/^\$scrypt\$ln=17,r=8,p=1\$/);
  });

  it("refuses a second account for the same email in any case, and the first one still works", async () => {
    const { email } = await signedUp();
    const dup = await call(signup, {
      body: { email: email.toUpperCase(), password: "another long passphrase here", name: "Eve" },
    });
    expect(dup.status).toBe(409);
    expect(dup.json.error.code).toBe("email_taken");
    expect(dup.setCookie).toHaveLength(0);
    const ok = await call(login, { body: { email, password: PASSWORD } });
    expect(ok.status).toBe(200);
    expect(ok.json.user.name).toBe("Ada");
  });

  const invalid: [string, unknown, string][] = [
    ["a malformed email", { email: "not-an-email", password: PASSWORD }, "email"],
    ["a 14-character password", { email: "a@example.com", password: "abcdefghijklmn" }, "password"],
    ["a 129-character password", { email: "a@example.com", password: "x".repeat(64) + "y".repeat(65) }, "password"],
    ["a common password", { email: "a@example.com", password: "passwordpassword" }, "password"],
    ["a missing password", { email: "a@example.com" }, "password"],
    ["a missing email", { password: PASSWORD }, "email"],
    ["a number for an email", { email: 42, password: PASSWORD }, "email"],
    ["an array for a password", { email: "a@example.com", password: [PASSWORD] }, "password"],
    ["an unknown field", { email: "a@example.com", password: PASSWORD, admin: true }, ""],
  ];
  it.each(invalid)("refuses %s with 400 invalid_input naming the field", async (_name, body, field) => {
    const res = await call(signup, { body });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe("invalid_input");
    const paths = res.json.error.details.issues.map((i: { path: string[] }) => i.path.join("."));
    if (field) expect(paths).toContain(field);
    expect(res.setCookie).toHaveLength(0);
  });

  it("rate-limits sign-up per client address and per email, with Retry-After", async () => {
    resetEnvForTests({ AUTH_RATE_LIMIT: "2" });
    try {
      const email = uniqueEmail();
      const attempt = (ip: string, address = email) =>
        call(signup, { body: { email: address, password: PASSWORD }, headers: { "x-forwarded-for": ip } });
      expect((await attempt("203.0.113.20")).status).toBe(201);
      expect((await attempt("203.0.113.21")).status).toBe(409);
      const sameEmail = await attempt("203.0.113.22");
      expect(sameEmail.status).toBe(429);
      expect(Number(sameEmail.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await attempt("203.0.113.30", uniqueEmail())).status).toBe(201);
      expect((await attempt("203.0.113.30", uniqueEmail())).status).toBe(201);
      expect((await attempt("203.0.113.30", uniqueEmail())).status).toBe(429);
    } finally {
      resetEnvForTests({ AUTH_RATE_LIMIT: "1000" });
    }
  });

  it("accepts any Unicode in a password and counts characters, not bytes", async () => {
    const res = await call(signup, { body: { email: uniqueEmail(), password: "ünïcødé pässwörd ✓ 🦊" } });
    expect(res.status).toBe(201);
    const fifteenEmoji = "🦊🐙🦉🐝🦋🐢🦀🐬🦒🐘🦓🐧🦜🐌🦔";
    expect((await call(signup, { body: { email: uniqueEmail(), password: fifteenEmoji } })).status).toBe(201);
  });

  it("refuses a huge body with 413 and a non-JSON body with 400 or 415", async () => {
    const huge = await call(signup, { body: { email: uniqueEmail(), password: PASSWORD, name: "n".repeat(70_000) } });
    expect(huge.status).toBe(413);
    const notJson = await call(signup, { rawBody: "email=a", headers: { "content-type": "application/json" } });
    expect(notJson.status).toBe(400);
    expect(notJson.json.error.code).toBe("invalid_json");
    const form = await call(signup, {
      rawBody: "email=a",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(415);
  });
});

describe("login and logout", () => {
  it("gives the same answer for an unknown email and a wrong password", async () => {
    const { email } = await signedUp();
    const wrong = await call(login, { body: { email, password: "not the right passphrase" } });
    const unknown = await call(login, { body: { email: uniqueEmail(), password: "not the right passphrase" } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.json).toEqual(unknown.json);
    expect(wrong.json.error.code).toBe("invalid_credentials");
  });

  it("matches the email case-insensitively", async () => {
    const { email } = await signedUp();
    expect((await call(login, { body: { email: email.toUpperCase(), password: PASSWORD } })).status).toBe(200);
  });

  it("rotates the session id at login, so a pre-login cookie is worthless", async () => {
    const { email, cookie: before } = await signedUp();
    const res = await call(login, { body: { email, password: PASSWORD }, cookie: before });
    expect(res.status).toBe(200);
    expect(res.cookie).not.toBe(before);
    expect((await call(me, { cookie: before })).status).toBe(401);
    expect((await call(me, { cookie: res.cookie })).status).toBe(200);
  });

  it("ends the session in the store at logout: the old cookie is refused", async () => {
    const { cookie } = await signedUp();
    const out = await call(logout, { method: "POST", cookie });
    expect(out.status).toBe(204);
    expect(out.setCookie[0]).toMatch(/Max-Age=0/);
    expect((await call(me, { cookie })).status).toBe(401);
  });

  it("answers 401 without a cookie and with a forged one", async () => {
    expect((await call(me)).status).toBe(401);
    const forged = await call(me, { cookie: "sw_session=Fe26.2**forged**value" });
    expect(forged.status).toBe(401);
    expect(forged.json.error.code).toBe("unauthenticated");
  });

  it("expires a session after the idle limit", async () => {
    const { cookie } = await signedUp();
    advanceClockForTests(SESSION_IDLE_MS - 60_000);
    expect((await call(me, { cookie })).status).toBe(200); // activity slides the idle window
    advanceClockForTests(SESSION_IDLE_MS - 60_000);
    expect((await call(me, { cookie })).status).toBe(200);
    advanceClockForTests(SESSION_IDLE_MS + 1000);
    expect((await call(me, { cookie })).status).toBe(401);
  });

  it("expires a session at the absolute limit even when it is used every day", async () => {
    const { cookie } = await signedUp();
    const day = 24 * 60 * 60 * 1000;
    for (let elapsed = 0; elapsed < SESSION_ABSOLUTE_MS - day; elapsed += day) {
      advanceClockForTests(day);
      expect((await call(me, { cookie })).status).toBe(200);
    }
    advanceClockForTests(2 * day);
    expect((await call(me, { cookie })).status).toBe(401);
  });

  it("rate-limits login per client address, with Retry-After", async () => {
    const { email } = await signedUp();
    resetEnvForTests({ AUTH_RATE_LIMIT: "3" });
    try {
      const attempt = (ip: string) =>
        call(login, { body: { email, password: "wrong passphrase here!!" }, headers: { "x-forwarded-for": ip } });
      for (let i = 0; i < 3; i++) expect((await attempt("203.0.113.7")).status).toBe(401);
      const limited = await attempt("203.0.113.7");
      expect(limited.status).toBe(429);
      expect(limited.json.error.code).toBe("rate_limited");
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    } finally {
      resetEnvForTests({ AUTH_RATE_LIMIT: "1000" });
    }
  });

  it("does not let one client's failures lock another client out of the same account", async () => {
    const { email } = await signedUp();
    resetEnvForTests({ AUTH_RATE_LIMIT: "3" });
    try {
      const attempt = (ip: string, password = "wrong passphrase here!!") =>
        call(login, { body: { email, password }, headers: { "x-forwarded-for": ip } });
      // Client A guesses until refused, and keeps going (refused attempts cost no hashing).
      const statuses = [];
      for (let i = 0; i < 25; i++) statuses.push((await attempt("203.0.113.66")).status);
      expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
      expect(new Set(statuses.slice(3))).toEqual(new Set([429]));
      // Client B, the owner elsewhere: a typo is an ordinary 401, the right password logs in.
      expect((await attempt("198.51.100.66")).status).toBe(401);
      expect((await attempt("198.51.100.66", PASSWORD)).status).toBe(200);
    } finally {
      resetEnvForTests({ AUTH_RATE_LIMIT: "1000" });
    }
  });
});
