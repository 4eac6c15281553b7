/**
 * The production build (`next start`) answers every documented error as docs/api.md says: status, code, the error
 * shape, and `Retry-After` where the contract names one, sandbox routes included with sandboxes on (real Podman).
 * Every answer is recorded: any 5xx for a client's mistake fails the suite (the class of bug, not one instance).
 */
import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";
import postgres from "postgres";
import { createTestDatabase, type TestDatabase } from "../lib/db/testing";
import { pluginRedeemBody } from "../test/pairing";
import { type AppProcess, startProductionApp } from "./support/app-process";
import { GuardedClient, unexpectedServerErrors } from "./support/http-guard";
import { e2eState } from "./support/state";
import { allowTest, scaled } from "./support/waits";

test.describe.configure({ mode: "serial" });

const password = "a long and unusual passphrase 7";
const KEY_BEFORE = "1f".repeat(32);
const KEY_AFTER = "2e".repeat(32);
const clients: GuardedClient[] = [];
let database: TestDatabase;
let app: AppProcess;

const configuration = (encryptionKey: string) => ({
  DATABASE_URL: database.url,
  SESSION_SECRET: "contract-suite-session-secret-0123456789",
  ENCRYPTION_KEY: encryptionKey,
  SITE_HOST_ALLOWLIST: "localhost",
  AUTH_RATE_LIMIT: "6",
  REDEEM_RATE_LIMIT: "1000",
  SANDBOX_DRIVER: "docker",
  ...(process.env.DOCKER_HOST ? { DOCKER_HOST: process.env.DOCKER_HOST } : {}),
  SANDBOX_POOL_SIZE: "1",
  SANDBOX_MAX: "1",
  LOG_LEVEL: "warn",
  NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? "",
});

const start = (encryptionKey: string) => startProductionApp("contract-app", configuration(encryptionKey));

function client(baseUrl = app.url) {
  const made = new GuardedClient(baseUrl);
  clients.push(made);
  return made;
}

async function signUp(baseUrl = app.url) {
  const user = client(baseUrl);
  const email = `contract-${randomUUID()}@example.com`;
  const res = await user.request("POST", "/auth/signup", { json: { email, password } });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return Object.assign(user, { email });
}

async function pair(user: GuardedClient, url: string) {
  const res = await user.request("POST", "/sites/pair", { json: { url } });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return { siteId: res.json.site.id as string, code: res.json.code as string, url: res.json.site.url as string };
}

async function poolState(user: GuardedClient) {
  const res = await user.request("GET", "/health");
  return res.json?.details?.sandboxPool as { ready: number; starting: number; inUse: number; capacity: number };
}

async function waitForWarmPool(user: GuardedClient) {
  await expect
    .poll(async () => (await poolState(user))?.ready, { timeout: scaled(120_000), intervals: [1000] })
    .toBe(1);
}

test.beforeAll(async () => {
  allowTest(240_000);
  database = await createTestDatabase();
  await database.handle.close();
  app = await start(KEY_BEFORE);
});

test.afterAll(async () => {
  await app?.stop();
  await database?.drop();
});

test.afterEach(() => {
  // The guard for the class: no answer in this suite may be a 5xx for a client's mistake.
  expect(unexpectedServerErrors(...clients).map((a) => `${a.method} ${a.path} → ${a.status} ${a.code}`)).toEqual([]);
});

let userA: Awaited<ReturnType<typeof signUp>>;
let userB: Awaited<ReturnType<typeof signUp>>;
let redeemedSiteId = "";

test("health shows the sandbox pool (counts only, no ids) from the process-wide registry", async () => {
  allowTest(150_000);
  const anyone = client();
  await waitForWarmPool(anyone);
  const res = await anyone.request("GET", "/health");
  expect(res.status).toBe(200);
  expect(res.json.checks).toEqual({ store: "ok", sandbox: "enabled", agent: "disabled" });
  expect(res.json.details.sandboxPool).toEqual({
    ready: 1,
    starting: 0,
    size: 1,
    inUse: 0,
    capacity: 1,
    network: "isolated",
  });
  expect(res.json.details.breakers).toBeUndefined(); // the agent has not run
  expect(JSON.stringify(res.json)).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
});

test("accounts: the documented errors of sign-up, log-in and me", async () => {
  const anonymous = client();
  await anonymous.expectError("GET", "/auth/me", 401, "unauthenticated");
  userA = await signUp();
  userB = await signUp();
  expect((await userA.request("GET", "/auth/me")).status).toBe(200);
  const invalid = await anonymous.expectError("POST", "/auth/signup", 400, "invalid_input", {
    json: { email: "not-an-email", password: "short" },
  });
  expect(invalid.json.error.details.issues.map((i: { path: string[] }) => i.path.join("."))).toEqual(
    expect.arrayContaining(["email", "password"]),
  );
  await anonymous.expectError("POST", "/auth/signup", 409, "email_taken", {
    json: { email: userA.email.toUpperCase(), password },
  });
  await anonymous.expectError("POST", "/auth/login", 401, "invalid_credentials", {
    json: { email: userA.email, password: `${password}x` },
  });
  await anonymous.expectError("POST", "/auth/signup", 400, "invalid_json", {
    body: "{nope",
    headers: { "Content-Type": "application/json" },
  });
  await anonymous.expectError("POST", "/auth/signup", 415, "unsupported_media_type", {
    body: "email=a",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
  });
  await anonymous.expectError("POST", "/auth/signup", 413, "payload_too_large", {
    json: { email: "a@example.com", password, name: "x".repeat(70 * 1024) },
  });
  await anonymous.expectError("POST", "/auth/login", 403, "cross_site_request", {
    json: { email: userA.email, password },
    headers: { Origin: "https://evil.example" },
  });
});

test("sites and pairing: every documented error", async () => {
  const { site } = e2eState();
  await userA.expectError("POST", "/sites/pair", 400, "invalid_input", { json: { url: "" } });
  await userA.expectError("POST", "/sites/pair", 422, "insecure_url", { json: { url: "http://example.com" } });
  await userA.expectError("POST", "/sites/pair", 422, "forbidden_host", { json: { url: "https://10.1.2.3" } });
  await client().expectError("POST", "/sites/pair", 401, "unauthenticated", { json: { url: site.url } });

  const plugin = client();
  await plugin.expectError("POST", "/sites/redeem", 404, "no_pending_pairing", {
    json: pluginRedeemBody("https://localhost:9", "BCDFGHJK"),
  });

  // Wrong codes count down, then the pairing locks.
  const locking = await pair(userA, "https://localhost:7");
  const wrong = locking.code === "BCDFGHJK" ? "CDFGHJKL" : "BCDFGHJK";
  const first = await plugin.expectError("POST", "/sites/redeem", 401, "invalid_code", {
    json: pluginRedeemBody(locking.url, wrong),
  });
  expect(first.json.error.details.attemptsLeft).toBe(4);
  for (let i = 0; i < 4; i++)
    await plugin.request("POST", "/sites/redeem", { json: pluginRedeemBody(locking.url, wrong) });
  await plugin.expectError("POST", "/sites/redeem", 429, "locked", {
    json: pluginRedeemBody(locking.url, locking.code),
  });

  // A used code, and an expired one (its expiry moved into the past in the database, as five minutes would).
  const used = await pair(userA, "https://localhost:1");
  expect((await plugin.request("POST", "/sites/redeem", { json: pluginRedeemBody(used.url, used.code) })).status).toBe(
    200,
  );
  redeemedSiteId = used.siteId;
  await plugin.expectError("POST", "/sites/redeem", 409, "code_used", { json: pluginRedeemBody(used.url, used.code) });
  const expiring = await pair(userA, "https://localhost:6");
  const sql = postgres(database.url, { max: 1 });
  try {
    await sql`update sites set code_expires_at = now() - interval '1 minute' where id = ${expiring.siteId}`;
  } finally {
    await sql.end();
  }
  await plugin.expectError("POST", "/sites/redeem", 410, "code_expired", {
    json: pluginRedeemBody(expiring.url, expiring.code),
  });

  // Another user's site is not found, exactly like a missing one.
  const unknown = randomUUID();
  for (const id of [used.siteId, unknown]) {
    await userB.expectError("GET", `/sites/${id}`, 404, "not_found");
    await userB.expectError("DELETE", `/sites/${id}`, 404, "not_found");
    await userB.expectError("POST", `/sites/${id}/confirm`, 404, "not_found");
  }

  // Confirm: not redeemed yet; redeemed but unreachable; redeemed but the plugin refuses our credentials.
  const pending = await pair(userA, site.url);
  await userA.expectError("POST", `/sites/${pending.siteId}/confirm`, 409, "not_redeemed");
  await userA.expectError("POST", `/sites/${used.siteId}/confirm`, 502, "site_unreachable");
  expect(
    (await plugin.request("POST", "/sites/redeem", { json: pluginRedeemBody(pending.url, pending.code) })).status,
  ).toBe(200);
  const rejected = await userA.expectError("POST", `/sites/${pending.siteId}/confirm`, 502, "site_rejected");
  expect(rejected.json.error.details).toBeDefined();
});

test("path parameters that are not ours are 404 on every route, never a 5xx", async () => {
  const bad = ["%00", "%C0%AF", "%FF", "not-an-id", "..%2F..%2Fetc", "%E2%80%AE", "x".repeat(300)];
  for (const id of bad) {
    await userA.expectError("GET", `/sites/${id}`, 404, "not_found");
    await userA.expectError("DELETE", `/sites/${id}`, 404, "not_found");
    await userA.expectError("POST", `/sites/${id}/confirm`, 404, "not_found");
    await userA.expectError("GET", `/sessions/${id}`, 404, "not_found");
    await userA.expectError("DELETE", `/sessions/${id}`, 404, "not_found");
    await userA.expectError("POST", `/sessions/${id}/login`, 404, "not_found");
    await userA.expectError("GET", `/sandbox/media/${id}/photo.jpg`, 404, "not_found");
  }
});

test("chat: the documented errors (agent off here; on in the shared e2e app)", async () => {
  await client().expectError("POST", "/chat", 401, "unauthenticated", {
    json: { siteId: randomUUID(), message: "hi" },
  });
  await userA.expectError("POST", "/chat", 503, "agent_unavailable", {
    json: { siteId: redeemedSiteId, message: "hi" },
  });
  await userA.expectError("POST", "/chat", 400, "invalid_input", { json: { message: 5 } });

  const { appUrl, site } = e2eState();
  const owner = await signUp(appUrl);
  const stranger = await signUp(appUrl);
  const pending = await pair(owner, site.url);
  await stranger.expectError("POST", "/chat", 404, "not_found", { json: { siteId: pending.siteId, message: "hi" } });
  await owner.expectError("POST", "/chat", 409, "site_not_active", { json: { siteId: pending.siteId, message: "hi" } });
  await owner.expectError("POST", "/chat", 413, "payload_too_large", {
    json: { siteId: pending.siteId, message: "é".repeat(5000) },
  });
  // Sandboxes are off on that app.
  await owner.expectError("POST", "/sessions", 503, "sandbox_unavailable", { json: {} });
});

let sandboxId = "";

test("sandboxes: the sandbox manager's errors reach the client with their contract codes", async () => {
  allowTest(120_000);
  await client().expectError("POST", "/sessions", 401, "unauthenticated", { json: {} });
  await userA.expectError("POST", "/sessions", 404, "not_found", { json: { siteId: randomUUID() } });
  await userB.expectError("POST", "/sessions", 404, "not_found", { json: { siteId: redeemedSiteId } });
  await userA.expectError("POST", "/sessions", 400, "invalid_input", { json: { ttlMinutes: 0 } });
  await userA.expectError("POST", "/sessions", 400, "invalid_input", { json: { ttlMinutes: 24 * 60 } });

  const created = await userA.request("POST", "/sessions", { json: {} });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  expect(created.json.sandbox.fromPool).toBe(true);
  sandboxId = created.json.sandbox.id;
  expect((await userA.request("GET", `/sessions/${sandboxId}`)).status).toBe(200);

  const full = await userB.expectError("POST", "/sessions", 429, "capacity_reached", { json: {} });
  expect(Number(full.headers.get("retry-after"))).toBeGreaterThan(0);

  for (const id of [sandboxId, randomUUID()]) {
    await userB.expectError("GET", `/sessions/${id}`, 404, "not_found");
    await userB.expectError("DELETE", `/sessions/${id}`, 404, "not_found");
    await userB.expectError("POST", `/sessions/${id}/login`, 404, "not_found");
  }
  expect((await userA.request("GET", `/sessions/${sandboxId}`)).status).toBe(200); // the stranger changed nothing
  expect((await userA.request("DELETE", `/sessions/${sandboxId}`)).status).toBe(204);
  await userA.expectError("GET", `/sessions/${sandboxId}`, 404, "not_found");
});

test("after a restart with another ENCRYPTION_KEY: the pool is replaced, a site must be paired again", async () => {
  allowTest(240_000);
  await waitForWarmPool(client()); // a pool member sealed under the first key
  await app.stop();
  app = await start(KEY_AFTER);
  for (const user of [userA, userB]) Object.assign(user, { baseUrl: app.url });

  const created = await userA.request("POST", "/sessions", { json: {} });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  expect((await userA.request("DELETE", `/sessions/${created.json.sandbox.id}`)).status).toBe(204);

  const answer = await userA.expectError("POST", `/sites/${redeemedSiteId}/confirm`, 409, "pairing_required");
  expect(answer.json.error.message).toMatch(/[Pp]air/);
  expect((await userA.request("GET", `/sites/${redeemedSiteId}`)).status).toBe(200);
});

test("log-in attempts over the limit are 429 rate_limited with Retry-After", async () => {
  const anonymous = client();
  let last = await anonymous.request("POST", "/auth/login", {
    json: { email: userA.email, password: "wrong wrong wrong" },
  });
  for (let i = 0; i < 10 && last.status !== 429; i++) {
    last = await anonymous.request("POST", "/auth/login", {
      json: { email: userA.email, password: "wrong wrong wrong" },
    });
  }
  expect(last.status).toBe(429);
  expect(last.code).toBe("rate_limited");
  expect(Number(last.headers.get("retry-after"))).toBeGreaterThan(0);
});
