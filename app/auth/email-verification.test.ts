/**
 * Email verification through the real route handlers, the real store (PGlite and PostgreSQL) and real SMTP to a
 * local sink: the link mailed at sign-up and after an email change, resending, expiry, and that login never waits
 * for it.
 */
import { describe, expect, it } from "vitest";
import { EMAIL_VERIFICATION_TTL_MS } from "@/lib/auth/account-tokens";
import { VERIFICATION_RESENDS_PER_ACCOUNT } from "@/lib/auth/email-verification";
import { advanceClockForTests } from "@/lib/clock";
import { STORES, useStore } from "@/lib/db/testing";
import { backgroundMailSettled } from "@/lib/mail/mailer";
import { call } from "@/test/http";
import { useMailSink } from "@/test/mail";
import { linkIn } from "@/test/smtp-sink";
import { POST as login } from "./login/route";
import { GET as me, PATCH as patchMe } from "./me/route";
import { POST as forgot } from "./password/forgot/route";
import { POST as reset } from "./password/reset/route";
import { POST as signup } from "./signup/route";
import { POST as resend } from "./verify-email/resend/route";
import { POST as verify } from "./verify-email/route";

const PASSWORD = "a long and unusual passphrase 7";
let counter = 0;
let ipCounter = 0;
const newClient = () => ({ "x-forwarded-for": `203.0.113.${++ipCounter}` });

describe.each(STORES)("email verification, %s", (kind) => {
  useStore(kind);
  const sink = useMailSink();

  /** The newest verification link mailed to `email` after `since` messages. */
  async function verificationLink(email: string, since = 0) {
    await backgroundMailSettled();
    const mail = await sink().waitFor(
      email,
      (m) => m.subject.startsWith("Confirm your email") && sink().messages.indexOf(m) >= since,
    );
    return linkIn(mail, "/verify-email").token;
  }

  async function account() {
    const email = `verify${Date.now().toString(36)}_${counter++}@example.com`;
    const res = await call(signup, { body: { email, password: PASSWORD } });
    expect(res.status).toBe(201);
    return { email, cookie: res.cookie!, token: await verificationLink(email) };
  }

  const verified = async (cookie: string) => (await call(me, { cookie })).json.user.emailVerified as boolean;

  it("mails a link at sign-up; confirming it marks the address verified, once", async () => {
    const a = await account();
    expect(await verified(a.cookie)).toBe(false);
    const res = await call(verify, { body: { token: a.token }, headers: newClient() });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ emailVerified: true });
    expect(await verified(a.cookie)).toBe(true);
    const again = await call(verify, { body: { token: a.token }, headers: newClient() });
    expect(again.status).toBe(400);
    expect(again.json.error.code).toBe("invalid_token");
  });

  it("never blocks login on verification", async () => {
    const a = await account();
    const res = await call(login, { body: { email: a.email, password: PASSWORD } });
    expect(res.status).toBe(200);
    expect(await verified(res.cookie!)).toBe(false);
  });

  it("refuses a link after 24 hours with 410 token_expired", async () => {
    const a = await account();
    advanceClockForTests(EMAIL_VERIFICATION_TTL_MS + 1000);
    const res = await call(verify, { body: { token: a.token }, headers: newClient() });
    expect(res.status).toBe(410);
    expect(res.json.error.code).toBe("token_expired");
  });

  it("keeps the purposes apart: a verification link cannot reset a password", async () => {
    const a = await account();
    const res = await call(reset, { body: { token: a.token, password: "another unusual passphrase" } });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe("invalid_token");
    expect((await call(verify, { body: { token: a.token } })).status).toBe(200);
  });

  it("resends a fresh link that replaces the old one, rate limited per account, and not once verified", async () => {
    const a = await account();
    const since = sink().messages.length;
    const res = await call(resend, { cookie: a.cookie, headers: newClient() });
    expect(res.status).toBe(202);
    expect(res.json).toEqual({ status: "sent" });
    const fresh = await verificationLink(a.email, since);
    expect(fresh).not.toBe(a.token);
    expect((await call(verify, { body: { token: a.token } })).json.error.code).toBe("invalid_token");
    for (let i = 1; i < VERIFICATION_RESENDS_PER_ACCOUNT; i++) {
      expect((await call(resend, { cookie: a.cookie, headers: newClient() })).status).toBe(202);
    }
    const limited = await call(resend, { cookie: a.cookie, headers: newClient() });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);

    const b = await account();
    expect((await call(verify, { body: { token: b.token } })).status).toBe(200);
    const done = await call(resend, { cookie: b.cookie, headers: newClient() });
    expect(done.json).toEqual({ status: "already_verified" });
    expect((await call(resend, {})).status).toBe(401);
  });

  it("a new email loses the verification, gets its own link, and kills links mailed to the old one", async () => {
    const a = await account();
    expect((await call(verify, { body: { token: a.token } })).status).toBe(200);
    // A change of case is the same address: still verified.
    const cased = await call(patchMe, {
      method: "PATCH",
      cookie: a.cookie,
      body: { email: a.email.toUpperCase(), currentPassword: PASSWORD },
    });
    expect(cased.status).toBe(200);
    expect(await verified(a.cookie)).toBe(true);

    expect((await call(forgot, { body: { email: a.email }, headers: newClient() })).status).toBe(202);
    await backgroundMailSettled();
    const resetToken = linkIn(
      await sink().waitFor(a.email, (m) => m.subject.includes("Reset")),
      "/reset-password",
    ).token;
    const moved = `moved-${a.email}`;
    const since = sink().messages.length;
    const res = await call(patchMe, {
      method: "PATCH",
      cookie: a.cookie,
      body: { email: moved, currentPassword: PASSWORD },
    });
    expect(res.status).toBe(200);
    expect(await verified(a.cookie)).toBe(false);
    const link = await verificationLink(moved, since);
    const stale = await call(reset, { body: { token: resetToken, password: "a passphrase for the old address" } });
    expect(stale.json.error.code).toBe("invalid_token");
    expect((await call(verify, { body: { token: link } })).status).toBe(200);
    expect(await verified(a.cookie)).toBe(true);
  });

  it("a password reset through the mailed link counts as verifying that address", async () => {
    const a = await account();
    expect((await call(forgot, { body: { email: a.email }, headers: newClient() })).status).toBe(202);
    await backgroundMailSettled();
    const token = linkIn(await sink().waitFor(a.email, (m) => m.subject.includes("Reset")), "/reset-password").token;
    expect((await call(reset, { body: { token, password: "a fresh and unusual passphrase" } })).status).toBe(200);
    const fresh = await call(login, { body: { email: a.email, password: "a fresh and unusual passphrase" } });
    expect(await verified(fresh.cookie!)).toBe(true);
  });

  it("answers malformed tokens with a 4xx, never a 5xx", async () => {
    for (const token of [
      "",
      "x",
      "A".repeat(43),
      "A".repeat(44),
      "%2e%2e",
      "\u0000",
      "😀".repeat(30),
      "a".repeat(513),
    ]) {
      const res = await call(verify, { body: { token }, headers: newClient() });
      expect(res.status, JSON.stringify(token)).toBe(400);
      expect(["invalid_input", "invalid_token"]).toContain(res.json.error.code);
    }
  });
});
