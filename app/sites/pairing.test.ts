import { describe, expect, it } from "vitest";
import { advanceClockForTests } from "@/lib/clock";
import { getDb } from "@/lib/db";
import { sites } from "@/lib/db/schema";
import { useTestDatabase } from "@/lib/db/testing";
import { resetEnvForTests } from "@/lib/env";
import { generatePairingCode, normalizePairingCode, PAIRING_CODE_ALPHABET, PAIRING_TTL_MS } from "@/lib/sites/pairing";
import { loadDashboard } from "@/lib/sites/dashboard";
import { disconnectSite, sweepDeadPairings } from "@/lib/sites/sites";
import { newUser } from "@/test/accounts";
import { call } from "@/test/http";
import { PLUGIN_SECRET, PLUGIN_TOKEN, pluginRedeemBody } from "@/test/pairing";
import { POST as pair } from "./pair/route";
import { POST as redeem } from "./redeem/route";
import { GET as listSites } from "./route";
import { DELETE as deleteSite, GET as getSite } from "./[id]/route";
import { POST as confirm } from "./[id]/confirm/route";
import { eq } from "drizzle-orm";

useTestDatabase();

let siteCounter = 0;
/** Each test pairs its own site URL (on localhost, which the test environment allowlists). */
const freshUrl = () => `https://localhost:${20000 + siteCounter++}`;

async function startPairing(url = freshUrl(), existing?: Awaited<ReturnType<typeof newUser>>) {
  const user = existing ?? (await newUser());
  const res = await call(pair, { body: { url }, cookie: user.cookie });
  expect(res.status).toBe(201);
  return { user, url, siteId: res.json.site.id as string, code: res.json.code as string, res };
}

const TOKEN = PLUGIN_TOKEN;
const SECRET = PLUGIN_SECRET;
const redeemBody = pluginRedeemBody;
const wrongCode = (code: string) => (code === "BBBBBBBB" ? "CCCCCCCC" : "BBBBBBBB");

describe("pairing codes", () => {
  it("are 8 characters of the RFC 8628 alphabet, from the CSPRNG", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const code = generatePairingCode();
      expect(code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{8}$/);
      seen.add(code);
    }
    // 20^8 codes: two equal codes among 2000 happen about once in 13,000 runs, three practically never.
    expect(seen.size).toBeGreaterThanOrEqual(1999);
    expect(PAIRING_CODE_ALPHABET).toBe("BCDFGHJKLMNPQRSTVWXZ");
  });

  it("are accepted in any case, with spaces or one hyphen", () => {
    expect(normalizePairingCode("bcdf-ghjk")).toBe("BCDFGHJK");
    expect(normalizePairingCode(" BCDF GHJK ")).toBe("BCDFGHJK");
    expect(normalizePairingCode("bc-df-ghjk")).toBeUndefined();
    expect(normalizePairingCode("BCDFGHJA")).toBeUndefined();
    expect(normalizePairingCode("BCDFGHJ")).toBeUndefined();
  });
});

describe("POST /sites/pair", () => {
  it("starts a pending pairing with a code that expires in five minutes", async () => {
    const { res, url } = await startPairing();
    expect(res.json.site).toEqual({ id: expect.any(String), url, status: "pending" });
    expect(res.json.code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{8}$/);
    const ttl = new Date(res.json.expiresAt).getTime() - Date.now();
    expect(ttl).toBeGreaterThan(PAIRING_TTL_MS - 5000);
    expect(ttl).toBeLessThanOrEqual(PAIRING_TTL_MS);
  });

  it("stores the code only as an HMAC", async () => {
    const { siteId, code } = await startPairing();
    const db = await getDb();
    const [row] = await db.select().from(sites).where(eq(sites.id, siteId));
    expect(row!.codeHmac).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(code);
  });

  it("normalizes the URL: lowercased host, no default port, no trailing slash", async () => {
    const user = await newUser();
    const res = await call(pair, { body: { url: "HTTPS://LocalHost:443/blog/" }, cookie: user.cookie });
    expect(res.status).toBe(201);
    expect(res.json.site.url).toBe("https://localhost/blog");
  });

  it("needs a session", async () => {
    const res = await call(pair, { body: { url: freshUrl() } });
    expect(res.status).toBe(401);
  });

  it("refuses cross-site requests", async () => {
    const user = await newUser();
    const res = await call(pair, {
      body: { url: freshUrl() },
      cookie: user.cookie,
      headers: { origin: "https://evil.test" },
    });
    expect(res.status).toBe(403);
    expect(res.json.error.code).toBe("cross_site_request");
  });

  it("refuses an http URL with 422 insecure_url", async () => {
    const user = await newUser();
    const res = await call(pair, { body: { url: "http://example.com" }, cookie: user.cookie });
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe("insecure_url");
  });

  it.each([
    "https://127.0.0.1",
    "https://[::1]",
    "https://169.254.169.254",
    "https://10.0.0.8",
    "https://2130706433",
    "https://0177.0.0.1",
    "https://[::ffff:127.0.0.1]",
  ])("refuses %s with 422 forbidden_host", async (url) => {
    const user = await newUser();
    const res = await call(pair, { body: { url }, cookie: user.cookie });
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe("forbidden_host");
  });

  it("refuses a name that resolves to a private address unless the operator allowlisted it", async () => {
    const user = await newUser();
    resetEnvForTests({ SITE_HOST_ALLOWLIST: "" });
    try {
      const res = await call(pair, { body: { url: "https://localhost:8443" }, cookie: user.cookie });
      expect(res.status).toBe(422);
      expect(res.json.error.code).toBe("forbidden_host");
    } finally {
      resetEnvForTests({ SITE_HOST_ALLOWLIST: "localhost" });
    }
  });

  it("answers a name that does not exist with 400 invalid_input, not a server error", async () => {
    const user = await newUser();
    const res = await call(pair, { body: { url: "https://no-such-host.invalid" }, cookie: user.cookie });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe("invalid_input");
    expect(res.json.error.details.issues[0].path).toEqual(["url"]);
  });

  it("refuses malformed input with 400 invalid_input", async () => {
    const user = await newUser();
    for (const body of [
      {},
      { url: 42 },
      { url: "x".repeat(3000) },
      { url: "https://localhost", extra: 1 },
      { url: "not a url at all" },
    ]) {
      const res = await call(pair, { body, cookie: user.cookie });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error.code).toBe("invalid_input");
    }
  });
});

describe("POST /sites/redeem", () => {
  it("redeems the right code once, stores the credentials encrypted, and never returns them", async () => {
    const { url, code, siteId, user } = await startPairing();
    const res = await call(redeem, { body: redeemBody(url, code.toLowerCase().replace(/^(....)/, "$1-")) });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ siteId });
    const db = await getDb();
    const [row] = await db.select().from(sites).where(eq(sites.id, siteId));
    expect(row!.status).toBe("redeemed");
    expect(row!.credentials).toMatch(/^v1\./);
    expect(row!.credentials).not.toContain(TOKEN);
    expect(row!.credentials).not.toContain(SECRET);
    const shown = await call(getSite, { cookie: user.cookie, params: { id: siteId } });
    expect(shown.json.site).toMatchObject({
      id: siteId,
      status: "redeemed",
      name: "Example Blog",
      pageBuilder: "gutenberg",
    });
    expect(shown.text).not.toContain(TOKEN.slice(4, 20));
    expect(shown.text).not.toContain(SECRET.slice(4, 20));
  });

  it("answers 404 no_pending_pairing for a URL nobody is pairing", async () => {
    const res = await call(redeem, { body: redeemBody(freshUrl(), "BCDFGHJK") });
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe("no_pending_pairing");
  });

  it("matches the site URL in its normalized form only", async () => {
    const { url, code } = await startPairing();
    const other = await call(redeem, { body: redeemBody(url.replace("localhost", "127.0.0.1"), code) });
    expect(other.status).toBe(404);
    const same = await call(redeem, {
      body: redeemBody(`${url.toUpperCase().replace("HTTPS", "https")}/`, code, { restUrl: `${url}/wp-json/` }),
    });
    expect(same.status).toBe(200);
  });

  it("refuses a REST URL on another origin", async () => {
    const { url, code } = await startPairing();
    const res = await call(redeem, { body: redeemBody(url, code, { restUrl: "https://evil.test/wp-json/" }) });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe("invalid_input");
  });

  it("counts wrong codes, tells the attempts left, and locks after exactly five", async () => {
    const { url, code } = await startPairing();
    for (const left of [4, 3, 2, 1]) {
      const res = await call(redeem, { body: redeemBody(url, wrongCode(code)) });
      expect(res.status).toBe(401);
      expect(res.json.error).toMatchObject({ code: "invalid_code", details: { attemptsLeft: left } });
    }
    const fifth = await call(redeem, { body: redeemBody(url, wrongCode(code)) });
    expect(fifth.status).toBe(429);
    expect(fifth.json.error.code).toBe("locked");
    const right = await call(redeem, { body: redeemBody(url, code) });
    expect(right.status).toBe(429);
    expect(right.json.error.code).toBe("locked");
  });

  it("locks after 20 concurrent wrong codes, and the right one is then refused", async () => {
    const { url, code, siteId } = await startPairing();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => call(redeem, { body: redeemBody(url, wrongCode(code)) })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(4);
    expect(statuses.filter((s) => s === 429)).toHaveLength(16);
    const db = await getDb();
    const [row] = await db.select().from(sites).where(eq(sites.id, siteId));
    expect(row!.failedAttempts).toBe(5);
    expect(row!.status).toBe("locked");
    expect((await call(redeem, { body: redeemBody(url, code) })).status).toBe(429);
  });

  it("gives exactly one success to 10 concurrent redeems of one code", async () => {
    const { url, code } = await startPairing();
    const results = await Promise.all(Array.from({ length: 10 }, () => call(redeem, { body: redeemBody(url, code) })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(9);
    expect(results.find((r) => r.status === 409)!.json.error.code).toBe("code_used");
  });

  it("refuses a code after five minutes with 410 code_expired, and shows the pairing as expired", async () => {
    const { url, code, siteId, user } = await startPairing();
    advanceClockForTests(PAIRING_TTL_MS + 1000);
    const res = await call(redeem, { body: redeemBody(url, code) });
    expect(res.status).toBe(410);
    expect(res.json.error.code).toBe("code_expired");
    const shown = await call(getSite, { cookie: user.cookie, params: { id: siteId } });
    expect(shown.json.site.status).toBe("expired");
  });

  it("supersedes the user's own pending pairing when they start a new one for the same URL", async () => {
    const first = await startPairing();
    const second = await startPairing(first.url, first.user);
    const old = await call(redeem, { body: redeemBody(first.url, first.code) });
    expect(old.status).toBe(401);
    const shownOld = await call(getSite, { cookie: first.user.cookie, params: { id: first.siteId } });
    expect(shownOld.json.site.status).toBe("expired");
    expect((await call(redeem, { body: redeemBody(first.url, second.code) })).status).toBe(200);
  });

  it("lets two users pair the same URL: neither pairing expires the other, and both redeem", async () => {
    const owner = await startPairing();
    const other = await startPairing(owner.url);
    const ownerView = await call(getSite, { cookie: owner.user.cookie, params: { id: owner.siteId } });
    expect(ownerView.json.site).toMatchObject({ status: "pending", attemptsLeft: 5 });

    const otherRedeemed = await call(redeem, { body: redeemBody(owner.url, other.code) });
    expect(otherRedeemed.status, otherRedeemed.text).toBe(200);
    expect(otherRedeemed.json).toEqual({ siteId: other.siteId });
    const ownerRedeemed = await call(redeem, { body: redeemBody(owner.url, owner.code) });
    expect(ownerRedeemed.status, ownerRedeemed.text).toBe(200);
    expect(ownerRedeemed.json).toEqual({ siteId: owner.siteId });
    for (const { user, siteId } of [owner, other]) {
      const shown = await call(getSite, { cookie: user.cookie, params: { id: siteId } });
      expect(shown.json.site.status).toBe("redeemed");
    }
  });

  it("never expires the owner's pairing when a stranger pairs the same URL over and over", async () => {
    const owner = await startPairing();
    const stranger = await startPairing(owner.url);
    // The stranger starts over and over: only their own pending pairing is replaced.
    const again = await startPairing(owner.url, stranger.user);
    await startPairing(owner.url, stranger.user);
    const strangerOld = await call(getSite, { cookie: stranger.user.cookie, params: { id: again.siteId } });
    expect(strangerOld.json.site.status).toBe("expired");
    const ownerView = await call(getSite, { cookie: owner.user.cookie, params: { id: owner.siteId } });
    expect(ownerView.json.site.status).toBe("pending");
    expect((await call(redeem, { body: redeemBody(owner.url, owner.code) })).status).toBe(200);
  });

  it("counts a wrong code against every pending pairing of the URL, so each keeps its own five-guess bound", async () => {
    const first = await startPairing();
    const wrong = (() => {
      for (const candidate of ["BBBBBBBB", "CCCCCCCC", "DDDDDDDD"]) if (candidate !== first.code) return candidate;
      return "FFFFFFFF";
    })();
    for (const left of [4, 3, 2]) {
      const res = await call(redeem, { body: redeemBody(first.url, wrong) });
      expect(res.json.error).toMatchObject({ code: "invalid_code", details: { attemptsLeft: left } });
    }
    const second = await startPairing(first.url);
    expect(second.code === wrong).toBe(false);
    // first: 3 failures; second: none. A wrong code is a guess at both codes: it counts against both.
    const both = await call(redeem, { body: redeemBody(first.url, wrong) });
    expect(both.status).toBe(401);
    expect(both.json.error.details.attemptsLeft).toBe(1);
    const locksFirst = await call(redeem, { body: redeemBody(first.url, wrong) });
    expect(locksFirst.status).toBe(401);
    expect(locksFirst.json.error.details.attemptsLeft).toBe(3);
    const firstView = await call(getSite, { cookie: first.user.cookie, params: { id: first.siteId } });
    expect(firstView.json.site.status).toBe("locked");
    expect((await call(redeem, { body: redeemBody(first.url, first.code) })).status).toBe(429);
    expect((await call(redeem, { body: redeemBody(first.url, second.code) })).status).toBe(200);
  });

  it("refuses bad bodies with 400 and never a 5xx", async () => {
    const { url, code } = await startPairing();
    const bodies = [
      {},
      { ...redeemBody(url, code), token: "short" },
      { ...redeemBody(url, code), plugin: {} },
      { ...redeemBody(url, code), code: 12345678 },
      { ...redeemBody(url, code), unexpected: true },
    ];
    for (const body of bodies) {
      const res = await call(redeem, { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
  });

  it("rate-limits redeem attempts per client address", async () => {
    resetEnvForTests({ REDEEM_RATE_LIMIT: "3" });
    try {
      const ip = "198.51.100.77";
      const statuses = [];
      for (let i = 0; i < 4; i++) {
        statuses.push(
          (await call(redeem, { body: redeemBody(freshUrl(), "BCDFGHJK"), headers: { "x-forwarded-for": ip } })).status,
        );
      }
      expect(statuses).toEqual([404, 404, 404, 429]);
    } finally {
      resetEnvForTests({ REDEEM_RATE_LIMIT: "1000" });
    }
  });

  it("lets a customer's right code through after 60 other addresses each used up their own redeem limit", async () => {
    resetEnvForTests({ REDEEM_RATE_LIMIT: "2" });
    try {
      const failures = [];
      for (let client = 0; client < 60; client++) {
        const ip = `198.51.${100 + Math.floor(client / 250)}.${client % 250}`;
        for (let i = 0; i < 3; i++) {
          const res = await call(redeem, {
            body: redeemBody(freshUrl(), "BCDFGHJK"),
            headers: { "x-forwarded-for": ip },
          });
          failures.push(res.status);
        }
      }
      // Each address met its own limit (404 twice, then 429)...
      expect(failures.filter((s) => s === 429)).toHaveLength(60);
      // ...and nobody else's: the 61st customer pairs.
      const { url, code } = await startPairing();
      const res = await call(redeem, { body: redeemBody(url, code), headers: { "x-forwarded-for": "203.0.113.61" } });
      expect(res.status).toBe(200);
    } finally {
      resetEnvForTests({ REDEEM_RATE_LIMIT: "1000" });
    }
  });
});

describe("a user's sites", () => {
  it("hides another user's site behind 404", async () => {
    const { siteId } = await startPairing();
    const stranger = await newUser("stranger");
    for (const handler of [getSite, deleteSite, confirm]) {
      const res = await call(handler, {
        method: handler === getSite ? "GET" : handler === deleteSite ? "DELETE" : "POST",
        cookie: stranger.cookie,
        params: { id: siteId },
      });
      expect(res.status).toBe(404);
      expect(res.json.error.code).toBe("not_found");
    }
  });

  it("lists the user's sites without credentials", async () => {
    const { user, siteId, url, code } = await startPairing();
    await call(redeem, { body: redeemBody(url, code) });
    const res = await call(listSites, { cookie: user.cookie });
    expect(res.status).toBe(200);
    expect(res.json.sites.map((s: { id: string }) => s.id)).toEqual([siteId]);
    expect(res.text).not.toContain("credentials");
  });

  it("refuses to confirm before the plugin redeemed: 409 not_redeemed", async () => {
    const { user, siteId } = await startPairing();
    const res = await call(confirm, { method: "POST", cookie: user.cookie, params: { id: siteId } });
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe("not_redeemed");
  });

  it("answers 502 site_unreachable when the confirmation round trip cannot reach the site", async () => {
    const { user, siteId, url, code } = await startPairing("https://localhost:1");
    expect((await call(redeem, { body: redeemBody(url, code) })).status).toBe(200);
    const res = await call(confirm, { method: "POST", cookie: user.cookie, params: { id: siteId } });
    expect(res.status).toBe(502);
    expect(res.json.error.code).toBe("site_unreachable");
    const shown = await call(getSite, { cookie: user.cookie, params: { id: siteId } });
    expect(shown.json.site.status).toBe("redeemed");
  });

  it("disconnects a site even when the site cannot be reached, destroying our credentials", async () => {
    const { user, siteId, url, code } = await startPairing("https://localhost:2");
    await call(redeem, { body: redeemBody(url, code) });
    const res = await call(deleteSite, { method: "DELETE", cookie: user.cookie, params: { id: siteId } });
    expect(res.status).toBe(204);
    const db = await getDb();
    const [row] = await db.select().from(sites).where(eq(sites.id, siteId));
    expect(row!.status).toBe("revoked");
    expect(row!.credentials).toBeNull();
    const list = await call(listSites, { cookie: user.cookie });
    expect(list.json.sites).toEqual([]);
  });

  it("sweeps expired pairings after a day", async () => {
    const { siteId } = await startPairing();
    advanceClockForTests(PAIRING_TTL_MS + 1000);
    await sweepDeadPairings();
    const db = await getDb();
    expect((await db.select().from(sites).where(eq(sites.id, siteId)))[0]!.status).toBe("expired");
    advanceClockForTests(25 * 60 * 60 * 1000);
    await sweepDeadPairings();
    expect(await db.select().from(sites).where(eq(sites.id, siteId))).toEqual([]);
  });
});

/** As a confirmation would leave it (the signed round trip itself is tested against the real plugin elsewhere). */
async function confirmedSite(url = freshUrl(), existing?: Awaited<ReturnType<typeof newUser>>) {
  const pairing = await startPairing(url, existing);
  expect((await call(redeem, { body: redeemBody(url, pairing.code) })).status).toBe(200);
  const db = await getDb();
  await db.update(sites).set({ status: "active", confirmedAt: new Date() }).where(eq(sites.id, pairing.siteId));
  return pairing;
}

const rowOf = async (id: string) => (await (await getDb()).select().from(sites).where(eq(sites.id, id)))[0]!;

describe("re-pairing a URL the user already has a site for", () => {
  it("gives the site the new credentials on redeem: same id, the pairing row spent and unlisted", async () => {
    const site = await confirmedSite();
    const before = await rowOf(site.siteId);
    const again = await startPairing(site.url, site.user);
    expect(again.siteId).not.toBe(site.siteId);
    const shownPending = await call(getSite, { cookie: site.user.cookie, params: { id: again.siteId } });
    expect(shownPending.json.site).toMatchObject({ id: again.siteId, status: "pending" });

    const res = await call(redeem, { body: redeemBody(site.url, again.code, { token: `swt_${"n".repeat(60)}` }) });
    expect(res.json).toEqual({ siteId: site.siteId });
    const after = await rowOf(site.siteId);
    expect(after).toMatchObject({ status: "redeemed", confirmedAt: before.confirmedAt });
    expect(after.credentials).not.toBe(before.credentials);
    expect(await rowOf(again.siteId)).toMatchObject({ status: "revoked", credentials: null });
    // The wizard polls the pairing's id and lands on the site; the lists show the site once.
    const shown = await call(getSite, { cookie: site.user.cookie, params: { id: again.siteId } });
    expect(shown.json.site).toMatchObject({ id: site.siteId, status: "redeemed" });
    const listed = await call(listSites, { cookie: site.user.cookie });
    expect(listed.json.sites.map((s: { id: string }) => s.id)).toEqual([site.siteId]);
    const dashboard = await loadDashboard({ userId: site.user.id });
    expect([...dashboard.sites, ...dashboard.disconnected, ...dashboard.abandoned].map((s) => s.id)).toEqual([
      site.siteId,
    ]);
    // The used code answers as used.
    expect((await call(redeem, { body: redeemBody(site.url, again.code) })).json.error.code).toBe("code_used");
  });

  it("brings a disconnected site back under its own id", async () => {
    const site = await confirmedSite();
    await disconnectSite({ userId: site.user.id, siteId: site.siteId }, { timeoutMs: 500 });
    expect((await rowOf(site.siteId)).status).toBe("revoked");
    const again = await startPairing(site.url, site.user);
    expect((await call(redeem, { body: redeemBody(site.url, again.code) })).json).toEqual({ siteId: site.siteId });
    expect(await rowOf(site.siteId)).toMatchObject({ status: "redeemed", revokedAt: null });
  });

  it("leaves the site as it was when the re-pairing expires or locks", async () => {
    const site = await confirmedSite();
    const before = await rowOf(site.siteId);
    const locked = await startPairing(site.url, site.user);
    for (let i = 0; i < 5; i++) await call(redeem, { body: redeemBody(site.url, wrongCode(locked.code)) });
    expect((await rowOf(locked.siteId)).status).toBe("locked");
    const expiring = await startPairing(site.url, site.user);
    advanceClockForTests(PAIRING_TTL_MS + 1000);
    expect((await call(redeem, { body: redeemBody(site.url, expiring.code) })).json.error.code).toBe("code_expired");
    await sweepDeadPairings();
    expect(await rowOf(site.siteId)).toEqual(before);
  });

  it("never touches another user's site of the same URL", async () => {
    const mine = await confirmedSite();
    const theirs = await confirmedSite(mine.url);
    const mineBefore = await rowOf(mine.siteId);
    const again = await startPairing(mine.url, theirs.user);
    expect((await call(redeem, { body: redeemBody(mine.url, again.code) })).json).toEqual({ siteId: theirs.siteId });
    expect(await rowOf(mine.siteId)).toEqual(mineBefore);
    const stranger = await call(getSite, { cookie: mine.user.cookie, params: { id: again.siteId } });
    expect(stranger.status).toBe(404);
  });

  it("starts fresh when the user's earlier pairing of the URL was never confirmed", async () => {
    const unconfirmed = await startPairing();
    await call(redeem, { body: redeemBody(unconfirmed.url, unconfirmed.code) });
    const again = await startPairing(unconfirmed.url, unconfirmed.user);
    expect((await call(redeem, { body: redeemBody(unconfirmed.url, again.code) })).json).toEqual({
      siteId: again.siteId,
    });
  });
});
