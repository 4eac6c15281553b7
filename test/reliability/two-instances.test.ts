/**
 * Two app instances (two processes, same DATABASE_URL, SESSION_SECRET and ENCRYPTION_KEY) behind an imaginary load
 * balancer: the rules that must hold "across any number of app instances" (docs/api.md) are checked with requests
 * spread over both.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { request, startInstance, type AppInstance } from "./support/instances";
import { pluginRedeemBody } from "../pairing";

let database: TestDatabase;
let a: AppInstance;
let b: AppInstance;

beforeAll(async () => {
  database = await createTestDatabase();
  [a, b] = await Promise.all([
    startInstance({ databaseUrl: database.url }),
    startInstance({ databaseUrl: database.url }),
  ]);
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await database?.drop();
});

const PASSWORD = "a long and unusual passphrase 7";
let counter = 0;
const both = () => [a, b];

async function signUp(on: AppInstance) {
  const email = `two${counter++}@example.com`;
  const res = await request(on.url, "/auth/signup", { body: { email, password: PASSWORD } });
  expect(res.status, res.text).toBe(201);
  return { email, cookie: res.cookie! };
}

async function startPairing(on: AppInstance, cookie: string, url = `https://localhost:${41000 + counter++}`) {
  const res = await request(on.url, "/sites/pair", { body: { url }, cookie });
  expect(res.status, res.text).toBe(201);
  return { url, code: res.json.code as string, siteId: res.json.site.id as string };
}

describe("two app instances on one PostgreSQL", () => {
  it("accept a session created on the other, and honour a logout made on the other", async () => {
    const { email, cookie } = await signUp(a);
    const onB = await request(b.url, "/auth/me", { cookie });
    expect(onB.status, onB.text).toBe(200);
    expect(onB.json.user.email).toBe(email);

    const login = await request(b.url, "/auth/login", { body: { email, password: PASSWORD } });
    expect(login.status).toBe(200);
    expect((await request(a.url, "/auth/me", { cookie: login.cookie })).status).toBe(200);

    expect((await request(b.url, "/auth/logout", { method: "POST", cookie })).status).toBe(204);
    expect((await request(a.url, "/auth/me", { cookie })).status, "logged out on B means logged out on A").toBe(401);
    expect((await request(a.url, "/auth/me", { cookie: login.cookie })).status).toBe(200);
  });

  it("give exactly one success to 10 concurrent redeems of one code spread over both", async () => {
    const { cookie } = await signUp(a);
    const { url, code, siteId } = await startPairing(b, cookie);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        request(both()[i % 2]!.url, "/sites/redeem", { body: pluginRedeemBody(url, code) }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(
      statuses.filter((s) => s === 200),
      statuses.join(","),
    ).toHaveLength(1);
    expect(
      statuses.filter((s) => s === 409),
      statuses.join(","),
    ).toHaveLength(9);
    expect(results.find((r) => r.status === 200)!.json).toEqual({ siteId });
    const shown = await request(a.url, `/sites/${siteId}`, { cookie });
    expect(shown.json.site.status).toBe("redeemed");
  });

  it("let two users pair one URL on different instances, and both redeem at once", async () => {
    const first = await signUp(a);
    const second = await signUp(b);
    const mine = await startPairing(a, first.cookie);
    const theirs = await startPairing(b, second.cookie, mine.url);
    const [one, two] = await Promise.all([
      request(b.url, "/sites/redeem", { body: pluginRedeemBody(mine.url, mine.code) }),
      request(a.url, "/sites/redeem", { body: pluginRedeemBody(mine.url, theirs.code) }),
    ]);
    expect(one.status, one.text).toBe(200);
    expect(one.json).toEqual({ siteId: mine.siteId });
    expect(two.status, two.text).toBe(200);
    expect(two.json).toEqual({ siteId: theirs.siteId });
  });

  it("count wrong codes across both and lock after exactly five", async () => {
    const { cookie } = await signUp(b);
    const { url, code, siteId } = await startPairing(a, cookie);
    const wrong = code === "BBBBBBBB" ? "CCCCCCCC" : "BBBBBBBB";
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        request(both()[i % 2]!.url, "/sites/redeem", { body: pluginRedeemBody(url, wrong) }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(
      statuses.filter((s) => s === 401),
      statuses.join(","),
    ).toHaveLength(4);
    expect(
      statuses.filter((s) => s === 429),
      statuses.join(","),
    ).toHaveLength(16);
    const attemptsLeft = results
      .filter((r) => r.status === 401)
      .map((r) => r.json.error.details.attemptsLeft)
      .sort();
    expect(attemptsLeft).toEqual([1, 2, 3, 4]);

    for (const instance of both()) {
      const right = await request(instance.url, "/sites/redeem", { body: pluginRedeemBody(url, code) });
      expect(right.status, "the right code after the lock").toBe(429);
      expect(right.json.error.code).toBe("locked");
    }
    const shown = await request(b.url, `/sites/${siteId}`, { cookie });
    expect(shown.json.site.status).toBe("locked");
  });

  it("see the same rate-limit counter", async () => {
    // Wrong logins from one client are spread over both instances; with a limit of 3 the fourth is refused
    // wherever it lands, which only holds if the counter is shared (docs/api.md, "Rate limits": a client's own
    // buckets, per address and per account and address, come first).
    const { email } = await signUp(a);
    const limited = await Promise.all([
      // Behind "a proxy" (TRUSTED_PROXY_HOPS=1), so each request comes from the address its X-Forwarded-For names.
      startInstance({ databaseUrl: database.url, env: { AUTH_RATE_LIMIT: "3", TRUSTED_PROXY_HOPS: "1" } }),
      startInstance({ databaseUrl: database.url, env: { AUTH_RATE_LIMIT: "3", TRUSTED_PROXY_HOPS: "1" } }),
    ]);
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await request(limited[i % 2]!.url, "/auth/login", {
          body: { email, password: "not the password at all, no" },
          headers: { "x-forwarded-for": "198.51.100.7" },
        });
        statuses.push(res.status);
      }
      expect(statuses).toEqual([401, 401, 401, 429]);
    } finally {
      await Promise.all(limited.map((instance) => instance.stop()));
    }
  });
});
