import { afterEach, describe, expect, it, vi } from "vitest";
import { openDatabase, setDatabaseForTests } from "@/lib/db";
import { createTestDatabase } from "@/lib/db/testing";
import { resetHealthForTests } from "@/lib/health";
import { call } from "@/test/http";
import { GET as health } from "./route";

afterEach(async () => {
  resetHealthForTests();
  await setDatabaseForTests(undefined);
});

describe("GET /health", () => {
  it("reports ok with the store, sandbox and agent checks", async () => {
    const database = await createTestDatabase();
    await setDatabaseForTests(database.handle);
    try {
      const res = await call(health);
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({
        status: "ok",
        version: expect.any(String),
        checks: { store: "ok", sandbox: "disabled", agent: "disabled" },
        sandboxes: { driver: null, checkpoint: false, prepared: false },
      });
    } finally {
      await database.drop();
    }
  });

  it("reports the sandbox driver and how cold starts are made: prepared ahead, never from a checkpoint", async () => {
    const database = await createTestDatabase();
    await setDatabaseForTests(database.handle);
    const { resetEnvForTests } = await import("@/lib/env");
    resetEnvForTests({ SANDBOX_DRIVER: "docker" });
    try {
      const res = await call(health);
      expect(res.json.checks.sandbox).toBe("enabled");
      expect(res.json.sandboxes).toEqual({ driver: "docker", checkpoint: false, prepared: true });
    } finally {
      resetEnvForTests({ SANDBOX_DRIVER: "" });
      await database.drop();
    }
  });

  it("reports 503 degraded when the store is unreachable", async () => {
    const unreachable = await openDatabase("postgres://postgres@127.0.0.1:1/nothing").catch(() => undefined);
    expect(unreachable).toBeUndefined(); // nothing listens on port 1: opening fails, as a dead server does
    const database = await createTestDatabase();
    await setDatabaseForTests(database.handle);
    await database.handle.close(); // the connection pool is gone: every query now fails
    const res = await call(health);
    expect(res.status).toBe(503);
    expect(res.json.status).toBe("degraded");
    expect(res.json.checks.store).toBe("unreachable");
    await database.drop();
  });
});

describe("GET /health details", () => {
  it("shows circuit breaker states without naming any site", async () => {
    const { registerHealthDetail } = await import("@/lib/health");
    const { breakerSummary, siteBreaker, resetBreakersForTests } = await import("@/lib/agent/breaker");
    resetBreakersForTests();
    registerHealthDetail("breakers", breakerSummary);
    const database = await createTestDatabase();
    await setDatabaseForTests(database.handle);
    try {
      const secretSiteId = "5d3c2f1e-site-that-must-not-leak";
      const breaker = siteBreaker(secretSiteId);
      for (let i = 0; i < 5; i++) breaker.acquire().fail("site down");
      const res = await call(health);
      expect(res.json.details.breakers.sites).toEqual({ closed: 0, open: 1, half_open: 0 });
      expect(res.text).not.toContain(secretSiteId);
    } finally {
      resetBreakersForTests();
      await database.drop();
    }
  });
});

describe("GET /health details across bundles", () => {
  it("serves a detail registered through another copy of lib/health, as boot's bundle does", async () => {
    const database = await createTestDatabase();
    await setDatabaseForTests(database.handle);
    try {
      vi.resetModules();
      const bootsCopy = await import("@/lib/health");
      bootsCopy.registerHealthDetail("sandboxPool", async () => ({ ready: 2, starting: 0 }), { background: true });
      bootsCopy.registerHealthDetail("breakers", () => undefined); // before the agent ran: left out
      const res = await call(health);
      expect(res.json.details).toEqual({ sandboxPool: { ready: 2, starting: 0 } });
    } finally {
      await database.drop();
    }
  });
});
