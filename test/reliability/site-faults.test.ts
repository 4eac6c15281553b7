/**
 * The WordPress site down, slow beyond the client's timeout, or answering garbage: every call ends with a clear
 * `site_unreachable` (or `site_rejected` for the site's own 5xx) within its time bound, the user-facing route says
 * so with a 502, and repeated failures open the site's breaker so the agent stops calling it.
 */
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { CircuitBreaker } from "@/lib/agent/breaker";
import { RunBudget } from "@/lib/agent/budget";
import getSiteInfo from "@/lib/agent/operations/get_site_info";
import { executeOperation, type ToolContext } from "@/lib/agent/tools";
import { useTestDatabase } from "@/lib/db/testing";
import { createSiteClient, SiteRequestError } from "@/lib/sites/client";
import { SAFE_FETCH_DEFAULTS } from "@/lib/sites/safe-fetch";
import { POST as confirm } from "@/app/sites/[id]/confirm/route";
import { GET as getSite } from "@/app/sites/[id]/route";
import { POST as pair } from "@/app/sites/pair/route";
import { POST as redeem } from "@/app/sites/redeem/route";
import { newUser } from "@/test/accounts";
import { call } from "@/test/http";
import { startFakeSite, type FakeSite, type Misbehaviour } from "./support/fake-site";
import { pluginRedeemBody } from "../pairing";

useTestDatabase();

const sites: FakeSite[] = [];
afterAll(async () => {
  await Promise.all(sites.map((site) => site.close()));
});

async function fakeSite(behaviour: Misbehaviour) {
  const site = await startFakeSite(behaviour);
  sites.push(site);
  return site;
}

const CONNECT_TIMEOUT_MS = 500;
const TIMEOUT_MS = 1500;
const clientFor = (origin: string) =>
  createSiteClient(
    { baseUrl: origin, restUrl: `${origin}/wp-json/`, token: `swt_${"t".repeat(40)}`, secret: `sws_${"s".repeat(40)}` },
    { connectTimeoutMs: CONNECT_TIMEOUT_MS, timeoutMs: TIMEOUT_MS, maxResponseBytes: 1024 * 1024 },
  );

async function failureOf(promise: Promise<unknown>): Promise<{ error: SiteRequestError; ms: number }> {
  const started = performance.now();
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  const ms = performance.now() - started;
  expect(error, "the call must fail").toBeInstanceOf(SiteRequestError);
  return { error: error as SiteRequestError, ms };
}

describe("the signed client against a misbehaving site", () => {
  const cases: [string, string, Misbehaviour, string, string | undefined][] = [
    ["that is down", "site_unreachable", "down", "unreachable", "connect"],
    ["that never answers", "site_unreachable", "hang", "unreachable", "timeout"],
    ["that trickles its answer", "site_unreachable", "trickle", "unreachable", "timeout"],
    ["that resets the connection", "site_unreachable", "reset", "unreachable", undefined],
    ["that does not speak HTTP", "site_unreachable", "not_http", "unreachable", undefined],
    ["that does not speak TLS", "site_unreachable", "not_tls", "unreachable", undefined],
    ["that answers an HTML page", "site_unreachable", "html", "bad_response", "not_json"],
    ["that answers binary garbage", "site_unreachable", "binary", "bad_response", "not_json"],
    ["that answers without end", "site_unreachable", "endless", "bad_response", "too_large"],
    ["that answers its own 500 page", "site_rejected", "error_page", "rejected", undefined],
  ];

  it.each(cases)("a site %s gives %s within the timeout", async (_label, code, behaviour, kind, reason) => {
    const site = await fakeSite(behaviour);
    const { error, ms } = await failureOf(clientFor(site.origin).get("/sitewright/v1/info"));
    expect(error.code).toBe(code);
    expect(error.kind).toBe(kind);
    if (reason) expect(error.details?.reason).toBe(reason);
    expect(error.status).toBe(502);
    expect(error.message).toMatch(/\w+ \w+/);
    expect(error.message).not.toMatch(/ECONN|UND_ERR|stack|undefined/);
    expect(ms, "nothing hangs past the client's total timeout").toBeLessThan(TIMEOUT_MS + 5000);
  });
});

describe("confirming a site (production timeouts) that misbehaves", () => {
  it("answers 502 site_unreachable for a site that is down, not TLS, answering HTML, or hanging, and leaves it redeemed", async () => {
    const user = await newUser("faults");
    const behaviours: Misbehaviour[] = ["down", "not_tls", "html", "hang"];
    const started = performance.now();
    // In parallel: the hanging site costs the whole default timeout, the others should not add to it.
    const results = await Promise.all(
      behaviours.map(async (behaviour) => {
        const site = await fakeSite(behaviour);
        const paired = await call(pair, { body: { url: site.origin }, cookie: user.cookie });
        expect(paired.status, paired.text).toBe(201);
        const body = pluginRedeemBody(site.origin, paired.json.code);
        expect((await call(redeem, { body })).status).toBe(200);
        const t0 = performance.now();
        const res = await call(confirm, { method: "POST", cookie: user.cookie, params: { id: paired.json.site.id } });
        const ms = performance.now() - t0;
        const shown = await call(getSite, { cookie: user.cookie, params: { id: paired.json.site.id } });
        return { behaviour, res, ms, status: shown.json.site.status };
      }),
    );
    for (const { behaviour, res, ms, status } of results) {
      expect(status, `${behaviour}: a failed confirmation leaves the site redeemed`).toBe("redeemed");
      expect(res.status, `${behaviour}: ${res.text}`).toBe(502);
      expect(res.json.error.code, behaviour).toBe("site_unreachable");
      expect(ms, `${behaviour} must end within the total timeout`).toBeLessThan(SAFE_FETCH_DEFAULTS.timeoutMs + 5000);
    }
    expect(performance.now() - started).toBeLessThan(SAFE_FETCH_DEFAULTS.timeoutMs + 5000);
  }, 40_000);
});

describe("the agent's calls to a failing site", () => {
  it("open the site's breaker after five failures in a row, after which the site is not called at all", async () => {
    const site = await fakeSite("hang");
    const budget = new RunBudget({ maxSteps: 100, maxToolCalls: 100, maxTokens: 1_000_000, timeoutMs: 60_000 });
    const breaker = new CircuitBreaker(`site ${randomUUID()}`);
    const ctx: Omit<ToolContext, "writes"> & Partial<Pick<ToolContext, "writes">> = {
      userId: randomUUID(),
      siteId: randomUUID(),
      conversationId: randomUUID(),
      client: createSiteClient(
        {
          baseUrl: site.origin,
          restUrl: `${site.origin}/wp-json/`,
          token: `swt_${"t".repeat(40)}`,
          secret: `sws_${"s".repeat(40)}`,
        },
        { connectTimeoutMs: 300, timeoutMs: 400 },
      ),
      breaker,
      budget,
      state: { approvedToolCalls: new Set(), outcomes: [] },
    };
    ctx.writes = {
      scope: {
        userId: ctx.userId,
        siteId: ctx.siteId,
        conversationId: ctx.conversationId,
        turnId: "t",
        target: "live",
      },
      client: ctx.client,
      plans: new Map(),
      emitChange: () => {},
    };
    try {
      const outputs = [];
      for (let i = 0; i < 5; i++)
        outputs.push(await executeOperation(ctx as ToolContext, getSiteInfo, {}, `call-${i}`));
      expect(outputs.map((o) => (o.ok ? "ok" : o.code))).toEqual(Array(5).fill("site_unreachable"));
      expect(breaker.snapshot().state).toBe("open");

      const seen = site.connections();
      const started = performance.now();
      const paused = await executeOperation(ctx as ToolContext, getSiteInfo, {}, "call-6");
      expect(paused.ok).toBe(false);
      expect(!paused.ok && paused.code).toBe("site_paused");
      // Fast next to a site timeout (seconds); the connection count below is what proves the site was not called.
      expect(performance.now() - started, "an open breaker fails fast").toBeLessThan(2000);
      expect(site.connections(), "no connection to the site while the breaker is open").toBe(seen);
    } finally {
      budget.dispose();
    }
  });
});
