import { describe, expect, it } from "vitest";
import { advanceClockForTests } from "@/lib/clock";
import { useTestDatabase } from "@/lib/db/testing";
import { GET as me } from "@/app/auth/me/route";
import { findSessionWithUser } from "@/lib/db/queries";
import { SESSION_IDLE_MS } from "@/lib/auth/session";
import { newUser } from "@/test/accounts";
import { call } from "@/test/http";
import { getDb } from "@/lib/db";
import { accountTokens, oauthTokens, sessions } from "@/lib/db/schema";
import { EMAIL_VERIFICATION_TTL_MS, hashAccountToken, issueAccountToken } from "@/lib/auth/account-tokens";
import { eq } from "drizzle-orm";
import { insertOAuthClient, insertOAuthGrant, insertOAuthTokens } from "@/lib/db/queries";
import { runSweeps } from "./maintenance";

useTestDatabase();

describe("maintenance sweeps", () => {
  it("delete idle sessions from the store and keep live ones", async () => {
    const idle = await newUser();
    advanceClockForTests(SESSION_IDLE_MS / 2);
    const live = await newUser();
    advanceClockForTests(SESSION_IDLE_MS / 2 + 1000);
    const swept = await runSweeps();
    expect(swept.sessions).toBe(1);
    const db = await getDb();
    const rows = await db.select().from(sessions);
    expect(rows.map((r) => r.userId)).toEqual([live.id]);
    expect((await call(me, { cookie: live.cookie })).status).toBe(200);
    expect((await call(me, { cookie: idle.cookie })).status).toBe(401);
    expect(await findSessionWithUser({ idHash: "none" })).toBeUndefined();
  });

  it("remove MCP clients' tokens a day after they expired, and keep the ones still in force", async () => {
    const owner = await newUser();
    const at = new Date();
    await insertOAuthClient({
      id: "client-sweep",
      name: "Sweep",
      redirectUris: ["https://a.example/cb"],
      authMethod: "none",
      secretHash: null,
      now: at,
    });
    await insertOAuthGrant({
      id: "grant-sweep",
      userId: owner.id,
      clientId: "client-sweep",
      siteIds: [],
      access: "read",
      now: at,
    });
    const token = (tokenHash: string, expiresAt: Date) => ({
      tokenHash,
      kind: "access" as const,
      grantId: "grant-sweep",
      familyId: "family",
      resource: "http://localhost:3000/mcp",
      createdAt: at,
      expiresAt,
    });
    await insertOAuthTokens([
      token("dead", new Date(at.getTime() - 2 * 24 * 60 * 60 * 1000)),
      token("fresh", new Date(at.getTime() + 60_000)),
    ]);
    const swept = await runSweeps();
    expect(swept.oauthTokens).toBe(1);
    const db = await getDb();
    expect((await db.select().from(oauthTokens)).map((row) => row.tokenHash)).toEqual(["fresh"]);
  });

  it("remove mailed links past their expiry, and keep the ones still valid", async () => {
    const owner = await newUser();
    await issueAccountToken({ userId: owner.id, purpose: "password_reset", email: owner.email, ttlMs: 60_000 });
    const verification = await issueAccountToken({
      userId: owner.id,
      purpose: "email_verification",
      email: owner.email,
      ttlMs: EMAIL_VERIFICATION_TTL_MS,
    });
    advanceClockForTests(120_000);
    const swept = await runSweeps();
    expect(swept.accountTokens).toBeGreaterThanOrEqual(1);
    const db = await getDb();
    const left = await db.select().from(accountTokens).where(eq(accountTokens.userId, owner.id));
    expect(left.map((row) => row.tokenHash)).toEqual([hashAccountToken(verification)]);
  });
});
