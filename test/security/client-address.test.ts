/**
 * Client addresses against the built app as `npm start` runs it (server.mjs over `next build`'s output), over
 * HTTP: the per-client limits of login, sign-up and redeem hold however a client rotates X-Forwarded-For (or
 * the header our server sets), with TRUSTED_PROXY_HOPS=0 (the TCP peer counts) and 1 (the right-most entry,
 * appended by "the proxy", counts). Needs `npm run build` first (npm test builds before vitest).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { CLIENT_IP_HEADER } from "@/lib/http/forwarded.mjs";
import { pluginRedeemBody } from "@/test/pairing";
import { type BuiltApp, launchBuiltApp, startBuiltApp } from "@/test/built-app";
import { request } from "@/test/reliability/support/instances";

const LIMIT = 3;
const PASSWORD = "a long and unusual passphrase 7";
/** Low limits so a spray is refused within a few requests. */
const LIMITED = {
  SITE_HOST_ALLOWLIST: "localhost",
  AUTH_RATE_LIMIT: String(LIMIT),
  REDEEM_RATE_LIMIT: String(LIMIT),
};

let counter = 0;
const email = () => `spray${Date.now()}-${counter++}@example.com`;
/** A different forged address on every request: what a sprayer rotates. */
const forged = () => `198.51.100.${counter++ % 250}`;

/**
 * `2 × LIMIT + 1` attempts, returning their statuses. Rate-limit windows are fixed minutes: the attempts may
 * straddle two windows, and then one of them still holds more than LIMIT, so a 429 is certain if the attempts
 * count as one client (and impossible if the rotation escaped).
 */
async function statusesOf(attempt: (i: number) => Promise<{ status: number }>) {
  const statuses: number[] = [];
  for (let i = 0; i < 2 * LIMIT + 1; i++) statuses.push((await attempt(i)).status);
  return statuses;
}

function expectLimited(statuses: number[], normal: number, output: string) {
  expect(statuses.slice(0, LIMIT), output).toEqual(Array(LIMIT).fill(normal));
  expect(statuses, output).toContain(429);
  for (const status of statuses) expect([normal, 429], output).toContain(status);
}

describe.each([
  { hops: 0, proxy: (_i: number) => undefined as string | undefined },
  // The proxy appends the address it saw; everything left of it is whatever the client sent.
  { hops: 1, proxy: (_i: number) => "203.0.113.50" },
])("with TRUSTED_PROXY_HOPS=$hops", ({ hops, proxy }) => {
  let database: TestDatabase;
  let app: BuiltApp;
  beforeAll(async () => {
    database = await createTestDatabase();
    app = await startBuiltApp({ ...LIMITED, DATABASE_URL: database.url, TRUSTED_PROXY_HOPS: String(hops) });
  }, 90_000);
  afterAll(async () => {
    await app?.stop();
    await database?.drop();
  });

  /** Headers a sprayer sends: a fresh forged X-Forwarded-For and our own header, with the proxy's entry last. */
  const sprayHeaders = (i: number) => {
    const appended = proxy(i);
    return {
      "x-forwarded-for": appended ? `${forged()}, ${appended}` : forged(),
      [CLIENT_IP_HEADER]: forged(),
    };
  };

  it("meets 429 on a password spray across many accounts from one client", async () => {
    const statuses = await statusesOf((i) =>
      request(app.url, "/auth/login", { body: { email: email(), password: PASSWORD }, headers: sprayHeaders(i) }),
    );
    expectLimited(statuses, 401, app.output());
  });

  it("meets 429 on sign-ups from one client under rotating addresses", async () => {
    const statuses = await statusesOf((i) =>
      request(app.url, "/auth/signup", { body: { email: email(), password: PASSWORD }, headers: sprayHeaders(i) }),
    );
    expectLimited(statuses, 201, app.output());
  });

  it("meets 429 on redeem attempts from one client under rotating addresses", async () => {
    const statuses = await statusesOf((i) =>
      request(app.url, "/sites/redeem", {
        body: pluginRedeemBody(`https://localhost:${30000 + counter++}`, "BCDFGHJK"),
        headers: sprayHeaders(i),
      }),
    );
    expectLimited(statuses, 404, app.output());
  });

  if (hops === 1) {
    it("counts another right-most address as another client", async () => {
      const other = await request(app.url, "/auth/login", {
        body: { email: email(), password: PASSWORD },
        headers: { "x-forwarded-for": `${forged()}, 203.0.113.51` },
      });
      expect(other.status).toBe(401);
    });
  }
});

describe("TRUSTED_PROXY_HOPS that is not a small whole number", () => {
  it("stops server.mjs at start with a clear message", async () => {
    const failed = await startBuiltApp({ ...LIMITED, TRUSTED_PROXY_HOPS: "one" }).then(
      async (server) => {
        await server.stop();
        return undefined;
      },
      (error: Error) => error,
    );
    expect(failed?.message).toMatch(/TRUSTED_PROXY_HOPS/);
  });
});

describe("a port another process holds", () => {
  it("stops server.mjs with exit code 1 and says which port is in use", async () => {
    // An HTTP server that is not ours (it answers 503, so the readiness poll waits for server.mjs to give up).
    const holder = createServer((_req, res) => res.writeHead(503).end());
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const port = (holder.address() as AddressInfo).port;
    try {
      const failed = await launchBuiltApp({ ALLOW_IN_MEMORY_STORE: "true" }, port).then(
        async (server) => {
          await server.stop();
          return undefined;
        },
        (error: Error) => error,
      );
      expect(failed?.message).toMatch(/^server\.mjs exited with 1:/);
      expect(failed?.message).toContain(`port ${port} is already in use`);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});
