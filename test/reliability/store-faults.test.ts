/**
 * The database going away and coming back, with a running app instance: /health says degraded, every request that
 * needs the store answers a clear 503 store_unavailable (never a hang, never a 500), and the same process recovers
 * when the database returns. Runs on a private PostgreSQL cluster so the shared server is never stopped.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrivatePostgres, type PrivatePostgres } from "./support/private-postgres";
import { request, startInstance, waitFor, type AppInstance, type HttpResult } from "./support/instances";

let postgres: PrivatePostgres;
const instances: AppInstance[] = [];

beforeAll(async () => {
  postgres = await createPrivatePostgres();
});
afterAll(async () => {
  await Promise.all(instances.map((instance) => instance.stop()));
  postgres?.destroy();
});

const PASSWORD = "a long and unusual passphrase 7";
const health = (instance: AppInstance) => request(instance.url, "/health", { timeoutMs: 10_000 });

function expectStoreUnavailable(res: HttpResult, what: string) {
  expect(res.status, `${what}: ${res.text}`).toBe(503);
  expect(res.json.error.code).toBe("store_unavailable");
  expect(res.json.error.message).toMatch(/temporarily unavailable/);
  expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
  expect(res.text).not.toMatch(/ECONNREFUSED|postgres|127\.0\.0\.1|stack/i);
}

describe("PostgreSQL stopped mid-run", () => {
  it("degrades /health, answers 503 store_unavailable quickly, and recovers without a restart", async () => {
    const app = await startInstance({ databaseUrl: postgres.url });
    instances.push(app);

    const signup = await request(app.url, "/auth/signup", {
      body: { email: "before@example.com", password: PASSWORD },
    });
    expect(signup.status, signup.text).toBe(201);
    const cookie = signup.cookie!;
    expect((await health(app)).status).toBe(200);

    postgres.stop();

    const degraded = await waitFor(
      () => health(app),
      (res) => res.status === 503,
      10_000,
      "/health to say degraded",
    );
    expect(degraded.json).toMatchObject({ status: "degraded", checks: { store: "unreachable" } });

    const started = Date.now();
    const during = await Promise.all([
      request(app.url, "/auth/login", { body: { email: "before@example.com", password: PASSWORD } }),
      request(app.url, "/auth/signup", { body: { email: "during@example.com", password: PASSWORD } }),
      request(app.url, "/auth/me", { cookie }),
      request(app.url, "/sites", { cookie }),
      request(app.url, "/sites/redeem", {
        body: {
          code: "BCDFGHJK",
          siteUrl: "https://localhost:9",
          restUrl: "https://localhost:9/wp-json/",
          token: "t".repeat(40),
          secret: "s".repeat(40),
          plugin: { version: "1" },
        },
      }),
    ]);
    expectStoreUnavailable(during[0], "login");
    expectStoreUnavailable(during[1], "signup");
    expectStoreUnavailable(during[2], "me");
    expectStoreUnavailable(during[3], "sites");
    expectStoreUnavailable(during[4], "redeem");
    expect(Date.now() - started, "requests while the store is down must fail fast, not hang").toBeLessThan(8000);

    postgres.start();

    const healthy = await waitFor(
      () => health(app),
      (res) => res.status === 200,
      15_000,
      "/health to recover",
    );
    expect(healthy.json).toMatchObject({ status: "ok", checks: { store: "ok" } });
    const me = await request(app.url, "/auth/me", { cookie });
    expect(me.status, me.text).toBe(200);
    expect(me.json.user.email).toBe("before@example.com");
    const login = await request(app.url, "/auth/login", { body: { email: "before@example.com", password: PASSWORD } });
    expect(login.status, login.text).toBe(200);
    const after = await request(app.url, "/auth/signup", { body: { email: "during@example.com", password: PASSWORD } });
    expect(after.status, "the signup refused during the outage left nothing behind").toBe(201);
    expect(app.stderr()).not.toMatch(/unhandled error/);
  });

  it("starts while the store is down, answers 503, and comes up when the store returns", async () => {
    postgres.stop();
    const app = await startInstance({ databaseUrl: postgres.url });
    instances.push(app);

    const first = await health(app);
    expect(first.status).toBe(503);
    expect(first.json.status).toBe("degraded");
    expectStoreUnavailable(
      await request(app.url, "/auth/login", { body: { email: "before@example.com", password: PASSWORD } }),
      "login",
    );

    postgres.start();

    await waitFor(
      () => health(app),
      (res) => res.status === 200,
      15_000,
      "/health to recover",
    );
    const login = await request(app.url, "/auth/login", { body: { email: "before@example.com", password: PASSWORD } });
    expect(login.status, login.text).toBe(200);
  });
});
