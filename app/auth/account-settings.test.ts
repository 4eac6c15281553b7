/**
 * The account page's routes through the real handlers and store: name and email, a password change that signs
 * out every other session, sign out everywhere, and deleting the account with all its data.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import {
  ensureChangeSet,
  findUserByEmail,
  insertChangeAudit,
  insertConversation,
  insertToolAudit,
  listAllSiteRowsForUser,
} from "@/lib/db/queries";
import { changeAudit, changeSets, conversations, toolAudit } from "@/lib/db/schema";
import { useTestDatabase } from "@/lib/db/testing";
import { resetEnvForTests } from "@/lib/env";
import { insertSiteRow } from "@/test/agent-site";
import { call } from "@/test/http";
import { eq } from "drizzle-orm";
import { POST as login } from "./login/route";
import { DELETE as deleteMe, GET as me, PATCH as patchMe } from "./me/route";
import { POST as password } from "./password/route";
import { DELETE as signOutAll } from "./sessions/route";
import { POST as signup } from "./signup/route";

useTestDatabase();

const PASSWORD = "a long and unusual passphrase 7";
const NEW_PASSWORD = "another quite unusual passphrase 9";
let counter = 0;

async function account() {
  const email = `settings${Date.now()}_${counter++}@example.com`;
  const res = await call(signup, { body: { email, password: PASSWORD, name: "Ada" } });
  expect(res.status).toBe(201);
  const second = await call(login, { body: { email, password: PASSWORD } });
  expect(second.status).toBe(200);
  return { email, id: res.json.user.id as string, cookie: res.cookie!, otherCookie: second.cookie! };
}

describe("account settings", () => {
  it("changes the name and email, and refuses an email another account uses", async () => {
    const a = await account();
    const b = await account();
    const changed = await call(patchMe, {
      method: "PATCH",
      cookie: a.cookie,
      body: { name: "Ada L.", email: `NEW-${a.email}`, currentPassword: PASSWORD },
    });
    expect(changed.status).toBe(200);
    expect(changed.json.user).toMatchObject({ name: "Ada L.", email: `NEW-${a.email}` });
    expect((await call(me, { cookie: a.cookie })).json.user.email).toBe(`NEW-${a.email}`);
    const renamed = await call(patchMe, {
      method: "PATCH",
      cookie: a.cookie,
      body: { name: "Ada", email: `NEW-${a.email}` },
    });
    expect(renamed.status).toBe(200); // the name alone needs no password
    const taken = await call(patchMe, {
      method: "PATCH",
      cookie: a.cookie,
      body: { email: b.email.toUpperCase(), currentPassword: PASSWORD },
    });
    expect(taken.status).toBe(409);
    expect(taken.json.error.code).toBe("email_taken");
    const bad = await call(patchMe, { method: "PATCH", cookie: a.cookie, body: { email: "not an email" } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe("invalid_input");
  });

  it("refuses a new email without the current password or with a wrong one, and keeps the old email", async () => {
    const a = await account();
    const next = `moved-${a.email}`;
    const without = await call(patchMe, { method: "PATCH", cookie: a.cookie, body: { email: next } });
    expect(without.status).toBe(400);
    expect(without.json.error.code).toBe("invalid_input");
    expect(without.json.error.details.issues[0].path).toEqual(["currentPassword"]);
    const wrong = await call(patchMe, {
      method: "PATCH",
      cookie: a.cookie,
      body: { email: next, currentPassword: "not my password at all" },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.json.error.code).toBe("invalid_credentials");
    expect((await call(me, { cookie: a.cookie })).json.user.email).toBe(a.email);
    expect(await findUserByEmail({ email: next })).toBeUndefined();
    expect((await call(login, { body: { email: a.email, password: PASSWORD } })).status).toBe(200);
  });

  it("rate-limits email changes per client, and one client's limit leaves the owner's other client alone", async () => {
    const a = await account();
    resetEnvForTests({ AUTH_RATE_LIMIT: "2" });
    try {
      const change = (ip: string, currentPassword: string) =>
        call(patchMe, {
          method: "PATCH",
          cookie: a.cookie,
          headers: { "x-forwarded-for": ip },
          body: { email: `limited-${a.email}`, currentPassword },
        });
      expect((await change("203.0.113.80", "wrong password one")).status).toBe(401);
      expect((await change("203.0.113.80", "wrong password two")).status).toBe(401);
      const limited = await change("203.0.113.80", PASSWORD);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await call(me, { cookie: a.cookie })).json.user.email).toBe(a.email);
      // Another client (the owner elsewhere) is not locked out; the account's own bucket over all clients is
      // ACCOUNT_LIMIT_FACTOR times as big (lib/rate-limit.test.ts).
      expect((await change("198.51.100.80", "wrong password three")).status).toBe(401);
      const moved = await change("198.51.100.80", PASSWORD);
      expect(moved.status).toBe(200);
      expect(moved.json.user.email).toBe(`limited-${a.email}`);
    } finally {
      resetEnvForTests({ AUTH_RATE_LIMIT: "1000" });
    }
  });

  it("changes the password only with the current one, and signs out every other session", async () => {
    const a = await account();
    const wrong = await call(password, {
      cookie: a.cookie,
      body: { currentPassword: "not my password at all", newPassword: NEW_PASSWORD },
    });
    expect(wrong.status).toBe(403);
    expect(wrong.json.error.code).toBe("wrong_password");
    expect((await call(me, { cookie: a.otherCookie })).status).toBe(200);

    const weak = await call(password, { cookie: a.cookie, body: { currentPassword: PASSWORD, newPassword: "short" } });
    expect(weak.status).toBe(400);

    const ok = await call(password, {
      cookie: a.cookie,
      body: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
    });
    expect(ok.status).toBe(204);
    expect((await call(me, { cookie: a.cookie })).status).toBe(200);
    expect((await call(me, { cookie: a.otherCookie })).status).toBe(401);
    expect((await call(login, { body: { email: a.email, password: PASSWORD } })).status).toBe(401);
    expect((await call(login, { body: { email: a.email, password: NEW_PASSWORD } })).status).toBe(200);
  });

  it("signs out everywhere, this session included", async () => {
    const a = await account();
    const res = await call(signOutAll, { method: "DELETE", cookie: a.cookie });
    expect(res.status).toBe(204);
    expect(res.setCookie[0]).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/);
    expect((await call(me, { cookie: a.cookie })).status).toBe(401);
    expect((await call(me, { cookie: a.otherCookie })).status).toBe(401);
  });

  it("deletes the account and its data only with the password", async () => {
    const a = await account();
    const siteId = await insertSiteRow({
      userId: a.id,
      url: "https://gone.example",
      token: "t",
      secret: "s",
      info: {},
      status: "revoked",
    });
    const conversationId = randomUUID();
    const at = new Date();
    await insertConversation({ id: conversationId, userId: a.id, siteId, title: "t", now: at });
    await insertToolAudit({
      id: randomUUID(),
      conversationId,
      userId: a.id,
      siteId,
      toolCallId: "call-1",
      operation: "list_pages",
      risk: "read",
      input: {},
      status: "ok",
      startedAt: at,
    });

    const changeSetId = randomUUID();
    await ensureChangeSet({
      id: changeSetId,
      userId: a.id,
      siteId,
      conversationId,
      turnId: "turn-1",
      target: "live",
      now: at,
    });
    await insertChangeAudit({
      id: randomUUID(),
      changeSetId,
      siteId,
      userId: a.id,
      action: "undo",
      itemIds: [],
      outcome: "ok",
      at,
    });

    const refused = await call(deleteMe, { method: "DELETE", cookie: a.cookie, body: { password: "wrong password" } });
    expect(refused.status).toBe(403);
    expect(await findUserByEmail({ email: a.email })).toBeDefined();

    const deleted = await call(deleteMe, { method: "DELETE", cookie: a.cookie, body: { password: PASSWORD } });
    expect(deleted.status).toBe(204);
    expect(await findUserByEmail({ email: a.email })).toBeUndefined();
    expect((await call(me, { cookie: a.otherCookie })).status).toBe(401);
    expect(await listAllSiteRowsForUser({ userId: a.id })).toEqual([]);
    const db = await getDb();
    expect(await db.select().from(conversations).where(eq(conversations.userId, a.id))).toEqual([]);
    expect(await db.select().from(toolAudit).where(eq(toolAudit.userId, a.id))).toEqual([]);
    expect(await db.select().from(changeSets).where(eq(changeSets.userId, a.id))).toEqual([]);
    expect(await db.select().from(changeAudit).where(eq(changeAudit.userId, a.id))).toEqual([]);
    expect((await call(login, { body: { email: a.email, password: PASSWORD } })).status).toBe(401);
  });
});
