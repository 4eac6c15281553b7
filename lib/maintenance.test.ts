import { describe, expect, it } from "vitest";
import { advanceClockForTests } from "@/lib/clock";
import { useTestDatabase } from "@/lib/db/testing";
import { GET as me } from "@/app/auth/me/route";
import { findSessionWithUser } from "@/lib/db/queries";
import { SESSION_IDLE_MS } from "@/lib/auth/session";
import { newUser } from "@/test/accounts";
import { call } from "@/test/http";
import { getDb } from "@/lib/db";
import { sessions } from "@/lib/db/schema";
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
});
