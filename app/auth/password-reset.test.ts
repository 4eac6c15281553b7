/**
 * "Forgot your password?" through the real route handlers, the real store (PGlite and PostgreSQL) and real SMTP:
 * the app's nodemailer delivers to a local sink (test/smtp-sink.ts) and the tests follow the link it received.
 */
import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { PASSWORD_RESET_TTL_MS } from "@/lib/auth/account-tokens";
import { RESET_MAILS_PER_ADDRESS_AND_CLIENT } from "@/lib/auth/password-reset";
import { advanceClockForTests } from "@/lib/clock";
import { getDb } from "@/lib/db";
import { accountTokens } from "@/lib/db/schema";
import { STORES, useStore } from "@/lib/db/testing";
import { resetEnvForTests } from "@/lib/env";
import { backgroundMailSettled, closeMailTransports } from "@/lib/mail/mailer";
import { call } from "@/test/http";
import { TEST_MAIL_FROM, useMailSink } from "@/test/mail";
import { linkIn, startSmtpSink } from "@/test/smtp-sink";
import { POST as login } from "./login/route";
import { GET as me } from "./me/route";
import { POST as forgot } from "./password/forgot/route";
import { POST as reset } from "./password/reset/route";
import { POST as signup } from "./signup/route";

const PASSWORD = "a long and unusual passphrase 7";
const NEW_PASSWORD = "a brand new and quite unusual passphrase";
let counter = 0;
let ipCounter = 0;
/** A client address of its own for each test, so the per-client limits of one test never reach another's. */
const newClient = () => ({ "x-forwarded-for": `198.51.100.${++ipCounter}` });

async function account() {
  const email = `reset${Date.now().toString(36)}_${counter++}@example.com`;
  const res = await call(signup, { body: { email, password: PASSWORD } });
  expect(res.status).toBe(201);
  const second = await call(login, { body: { email, password: PASSWORD } });
  expect(second.status).toBe(200);
  return { email, id: res.json.user.id as string, cookie: res.cookie!, otherCookie: second.cookie! };
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe.each(STORES)("password reset, %s", (kind) => {
  useStore(kind);
  const sink = useMailSink();

  const ask = (email: string, headers: Record<string, string> = newClient()) =>
    call(forgot, { body: { email }, headers });
  async function resetLink(email: string) {
    const before = sink().messages.length;
    expect((await ask(email)).status).toBe(202);
    await backgroundMailSettled();
    const mail = await sink().waitFor(
      email,
      (m) => m.subject.includes("Reset") && sink().messages.indexOf(m) >= before,
    );
    return linkIn(mail, "/reset-password").token;
  }

  it("answers an unknown address exactly as a known one, and mails only the known one", async () => {
    const known = await account();
    const unknown = `nobody-${known.email}`;
    const a = await ask(known.email);
    const b = await ask(unknown);
    expect(a.status).toBe(202);
    expect(b.status).toBe(a.status);
    expect(b.text).toBe(a.text);
    expect(b.setCookie).toEqual(a.setCookie);
    expect(b.headers.get("content-type")).toBe(a.headers.get("content-type"));
    await backgroundMailSettled();
    const mail = await sink().waitFor(known.email, (m) => m.subject.includes("Reset"));
    expect(mail.from).toBe("no-reply@sitewright.test");
    expect(mail.headers.from).toBe(TEST_MAIL_FROM);
    expect(mail.authUser).toBe("sink"); // the credentials in SMTP_URL were used
    expect(linkIn(mail, "/reset-password").url).toMatch(/^http:\/\/localhost:3000\/reset-password\?token=/);
    expect(sink().messages.filter((m) => m.to.includes(unknown))).toEqual([]);
  });

  it("answers before the mail server does: a slow server delays the mail, not the answer", async () => {
    const slow = await startSmtpSink({ greetingDelayMs: 2000 });
    resetEnvForTests({ SMTP_URL: slow.url });
    try {
      const known = await account();
      const started = performance.now();
      expect((await ask(known.email)).status).toBe(202);
      expect(performance.now() - started).toBeLessThan(1000);
      const mail = await slow.waitFor(known.email, (m) => m.subject.includes("Reset"));
      expect(mail.receivedAt - started).toBeGreaterThan(1500);
    } finally {
      await backgroundMailSettled();
      resetEnvForTests({ SMTP_URL: sink().url });
      closeMailTransports();
      await slow.close();
    }
  });

  it("keeps only a SHA-256 of the mailed token, valid for 30 minutes", async () => {
    const a = await account();
    const token = await resetLink(a.email);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/); // 32 random bytes
    const rows = await (await getDb()).select().from(accountTokens).where(eq(accountTokens.userId, a.id));
    const resets = rows.filter((row) => row.purpose === "password_reset");
    expect(resets).toHaveLength(1);
    expect(resets[0]!.tokenHash).toBe(sha256(token));
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(resets[0]!.expiresAt.getTime() - resets[0]!.createdAt.getTime()).toBe(PASSWORD_RESET_TTL_MS);
  });

  it("sets the new password, signs out every session and mails a notice", async () => {
    const a = await account();
    const token = await resetLink(a.email);
    const res = await call(reset, { body: { token, password: NEW_PASSWORD }, headers: newClient() });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ passwordChanged: true });
    expect((await call(me, { cookie: a.cookie })).status).toBe(401);
    expect((await call(me, { cookie: a.otherCookie })).status).toBe(401);
    expect((await call(login, { body: { email: a.email, password: PASSWORD } })).status).toBe(401);
    expect((await call(login, { body: { email: a.email, password: NEW_PASSWORD } })).status).toBe(200);
    await backgroundMailSettled();
    const notice = await sink().waitFor(a.email, (m) => m.subject === "Your Sitewright password was changed");
    expect(notice.text).toContain("every session was signed out");
    const again = await call(reset, { body: { token, password: `${NEW_PASSWORD} again` }, headers: newClient() });
    expect(again.status).toBe(400);
    expect(again.json.error.code).toBe("invalid_token");
  });

  it("lets exactly one of five parallel uses of a link through", async () => {
    const a = await account();
    const token = await resetLink(a.email);
    const answers = await Promise.all(
      [1, 2, 3, 4, 5].map((n) =>
        call(reset, { body: { token, password: `${NEW_PASSWORD} number ${n}` }, headers: newClient() }),
      ),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400]);
    const winner = answers.findIndex((r) => r.status === 200) + 1;
    const password = `${NEW_PASSWORD} number ${winner}`;
    expect((await call(login, { body: { email: a.email, password } })).status).toBe(200);
  });

  it("refuses a link after 30 minutes with 410 token_expired, and works until then", async () => {
    const a = await account();
    const first = await resetLink(a.email);
    advanceClockForTests(PASSWORD_RESET_TTL_MS + 1000);
    const late = await call(reset, { body: { token: first, password: NEW_PASSWORD }, headers: newClient() });
    expect(late.status).toBe(410);
    expect(late.json.error.code).toBe("token_expired");
    expect((await call(login, { body: { email: a.email, password: PASSWORD } })).status).toBe(200);

    const second = await resetLink(a.email);
    advanceClockForTests(PASSWORD_RESET_TTL_MS - 60_000);
    const inTime = await call(reset, { body: { token: second, password: NEW_PASSWORD }, headers: newClient() });
    expect(inTime.status).toBe(200);
  });

  it("makes an earlier link useless once a new one is asked for", async () => {
    const a = await account();
    const first = await resetLink(a.email);
    const second = await resetLink(a.email);
    expect(second).not.toBe(first);
    const old = await call(reset, { body: { token: first, password: NEW_PASSWORD }, headers: newClient() });
    expect(old.status).toBe(400);
    expect(old.json.error.code).toBe("invalid_token");
    expect((await call(reset, { body: { token: second, password: NEW_PASSWORD } })).status).toBe(200);
  });

  it("refuses a weak new password with the sign-up rules, and the link still works afterwards", async () => {
    const a = await account();
    const token = await resetLink(a.email);
    for (const password of ["short", "passwordpasswordpassword", "x".repeat(129)]) {
      const res = await call(reset, { body: { token, password }, headers: newClient() });
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe("invalid_input");
      expect(res.json.error.details.issues[0].path).toEqual(["password"]);
    }
    expect((await call(reset, { body: { token, password: NEW_PASSWORD }, headers: newClient() })).status).toBe(200);
  });

  it("rate-limits mails per address and client, the same for unknown addresses, without locking the owner out", async () => {
    const a = await account();
    for (const email of [a.email, `nobody-${a.email}`]) {
      const client = newClient();
      for (let i = 0; i < RESET_MAILS_PER_ADDRESS_AND_CLIENT; i++) expect((await ask(email, client)).status).toBe(202);
      const limited = await ask(email, client);
      expect(limited.status).toBe(429);
      expect(limited.json.error.code).toBe("rate_limited");
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await ask(email.toUpperCase(), client)).status).toBe(429); // one address, whatever its case
      expect((await ask(email, newClient())).status).toBe(202); // the owner, elsewhere
    }
  });

  it("rate-limits one client across addresses with AUTH_RATE_LIMIT", async () => {
    resetEnvForTests({ AUTH_RATE_LIMIT: "2" });
    try {
      const client = newClient();
      expect((await ask(`first-${counter++}@example.com`, client)).status).toBe(202);
      expect((await ask(`second-${counter++}@example.com`, client)).status).toBe(202);
      const limited = await ask(`third-${counter++}@example.com`, client);
      expect(limited.status).toBe(429);
      expect(limited.headers.get("retry-after")).toBeTruthy();
    } finally {
      resetEnvForTests({ AUTH_RATE_LIMIT: "1000" });
    }
  });

  it("answers malformed tokens, passwords and addresses with a 4xx, never a 5xx", async () => {
    const nearMiss = fc.oneof(
      fc.string({ maxLength: 600 }),
      fc.stringMatching(/^[A-Za-z0-9_-]{42,44}$/),
      fc.stringMatching(/^[A-Za-z0-9+/=]{43}$/),
      fc.constantFrom("", " ", "%00", "\u0000".repeat(43), "😀".repeat(43), "A".repeat(43)),
    );
    await fc.assert(
      fc.asyncProperty(
        nearMiss,
        fc.oneof(fc.string({ maxLength: 200 }), fc.constant(NEW_PASSWORD)),
        async (token, password) => {
          const res = await call(reset, { body: { token, password }, headers: newClient() });
          expect(res.status, `${JSON.stringify(token)} → ${res.status} ${res.text}`).toBeGreaterThanOrEqual(400);
          expect(res.status).toBeLessThan(500);
          expect(["invalid_input", "invalid_token"]).toContain(res.json.error.code);
        },
      ),
      { numRuns: 150 },
    );
    const address = fc.oneof(fc.emailAddress(), fc.string({ maxLength: 300 }), fc.constant("a@b"), fc.constant("@"));
    await fc.assert(
      fc.asyncProperty(address, async (email) => {
        const res = await ask(email);
        expect(res.status, `${JSON.stringify(email)} → ${res.status} ${res.text}`).toBeLessThan(500);
        expect([202, 400]).toContain(res.status);
      }),
      { numRuns: 150 },
    );
  });

  describe("without a mail server", () => {
    it("writes the message to the app log in development and tests, link included", async () => {
      const a = await account();
      resetEnvForTests({ SMTP_URL: undefined, LOG_LEVEL: "warn" });
      const written = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
      try {
        expect((await ask(a.email)).status).toBe(202);
        await backgroundMailSettled();
        const lines = written.mock.calls.map(([chunk]) => String(chunk)).filter((l) => l.includes("password_reset"));
        expect(lines).toHaveLength(1);
        const record = JSON.parse(lines[0]!);
        expect(record.message).toMatch(/^Password reset mail: not sent \(SMTP_URL is not set\)/);
        expect(record.to).toBe(a.email);
        expect(record.text).toMatch(/\/reset-password\?token=[A-Za-z0-9_-]{43}/);
      } finally {
        written.mockRestore();
        resetEnvForTests({ SMTP_URL: sink().url, LOG_LEVEL: "silent" });
      }
    });

    it("in production answers the same and logs an operator error, without the link", async () => {
      const a = await account();
      resetEnvForTests({
        SMTP_URL: undefined,
        LOG_LEVEL: "warn",
        NODE_ENV: "production",
        ALLOW_IN_MEMORY_STORE: "true",
      });
      const written = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
      try {
        const res = await ask(a.email);
        expect(res.status).toBe(202);
        expect(res.json).toEqual({ accepted: true });
        await backgroundMailSettled();
        const lines = written.mock.calls.map(([chunk]) => String(chunk)).filter((l) => l.includes("password_reset"));
        expect(lines).toHaveLength(1);
        const record = JSON.parse(lines[0]!);
        expect(record.level).toBe("error");
        expect(record.message).toMatch(/mail is not configured: set SMTP_URL/);
        expect(lines[0]).not.toContain("token=");
        expect(lines[0]).not.toContain(a.email);
      } finally {
        written.mockRestore();
        resetEnvForTests({
          SMTP_URL: sink().url,
          LOG_LEVEL: "silent",
          NODE_ENV: "test",
          ALLOW_IN_MEMORY_STORE: undefined,
        });
      }
    });
  });
});
