/**
 * The client's own behaviour against a loopback https server that checks signatures with the TypeScript verifier.
 * The real plugin on a real WordPress is in client.integration.test.ts.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "../errors";
import { createSiteClient, type SiteClientOptions, SiteRequestError } from "./client";
import type { Resolver } from "./safe-fetch";
import { verify } from "./signing";
import { makeTestCertificates } from "./testing/tls";

type Seen = { method: string; url: URL; headers: IncomingMessage["headers"]; body: string; valid: boolean };
type Reply = (seen: Seen, response: ServerResponse) => void;

const SECRET = "swsec_unit_test_secret";
const TOKEN = "swtok_unit_test_token";
const certs = makeTestCertificates(["site.test", "evil.test"]);
const seen: Seen[] = [];
const json = (status: number, data: unknown) => (_seen: Seen, response: ServerResponse) =>
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(data));
let reply: Reply = json(200, { ok: true });

/** Checks the signature the way the plugin does: route from the path or from rest_route, every other parameter. */
function verifyLikeThePlugin(method: string, url: URL, headers: IncomingMessage["headers"], body: string): boolean {
  const pairs = [...url.searchParams.entries()];
  const route = url.searchParams.get("rest_route") ?? url.pathname.replace(/^\/wp-json/, "");
  return verify(
    SECRET,
    { timestamp: String(headers["x-sitewright-timestamp"]), method, route, query: pairs, body },
    String(headers["x-sitewright-signature"]),
  );
}

const server = createServer({ cert: certs.cert, key: certs.key }, (request, response) => {
  let body = "";
  request.on("data", (chunk) => (body += chunk));
  request.on("end", () => {
    const url = new URL(request.url ?? "/", "https://site.test");
    const entry = {
      method: request.method ?? "",
      url,
      headers: request.headers,
      body,
      valid: verifyLikeThePlugin(request.method ?? "", url, request.headers, body),
    };
    seen.push(entry);
    reply(entry, response);
  });
});
let connections = 0;
server.on("secureConnection", () => connections++);
let origin = "";
const resolver: Resolver = async () => [{ address: "127.0.0.1", family: 4 }];
const options: SiteClientOptions = { ca: certs.ca, resolver, allowlist: ["site.test"] };

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `https://site.test:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
afterEach(() => {
  seen.length = 0;
  connections = 0;
  reply = json(200, { ok: true });
});

const prettyClient = (extra: SiteClientOptions = {}) =>
  createSiteClient(
    { baseUrl: origin, restUrl: `${origin}/wp-json/`, token: TOKEN, secret: SECRET },
    { ...options, ...extra },
  );
const plainClient = () =>
  createSiteClient({ baseUrl: origin, restUrl: `${origin}/?rest_route=/`, token: TOKEN, secret: SECRET }, options);

async function failure(promise: Promise<unknown>): Promise<SiteRequestError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SiteRequestError);
  return error as SiteRequestError;
}

describe("the signed site client", () => {
  it("sends a signed GET under /wp-json/ with the bearer token", async () => {
    const response = await prettyClient().get("/sitewright/v1/info");
    expect(response).toMatchObject({ status: 200, data: { ok: true } });
    const [request] = seen;
    expect(request!.url.pathname).toBe("/wp-json/sitewright/v1/info");
    expect(request!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request!.headers["x-sitewright-signature"]).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(request!.headers["x-http-method-override"]).toBeUndefined();
    expect(request!.valid).toBe(true);
  });

  it("puts the route in rest_route on a site without pretty permalinks and signs the other parameters", async () => {
    await plainClient().get("/wp/v2/pages", { per_page: 2, search: "café & co+", orderby: "title" });
    const [request] = seen;
    expect(request!.url.pathname).toBe("/");
    expect(request!.url.searchParams.get("rest_route")).toBe("/wp/v2/pages");
    expect(request!.url.searchParams.get("search")).toBe("café & co+");
    expect(request!.valid).toBe(true);
  });

  it("encodes query values so PHP reads back exactly what was signed", async () => {
    await prettyClient().get("/wp/v2/pages", { search: "a+b c/d~*", empty: "" });
    const raw = seen[0]!.url.search;
    expect(raw).toBe("?search=a%2Bb%20c%2Fd~%2A&empty=");
    expect(seen[0]!.valid).toBe(true);
  });

  it("signs a JSON body with unicode for POST, PUT, PATCH and DELETE", async () => {
    const client = prettyClient();
    await client.post("/wp/v2/pages", { title: "Grüße 👋" });
    await client.put("/wp/v2/pages/3", { title: "x" });
    await client.patch("/wp/v2/pages/3", { title: "y" });
    await client.delete("/wp/v2/pages/3", { force: true });
    expect(seen.map((request) => [request.method, request.valid])).toEqual([
      ["POST", true],
      ["PUT", true],
      ["PATCH", true],
      ["DELETE", true],
    ]);
    expect(JSON.parse(seen[0]!.body)).toEqual({ title: "Grüße 👋" });
    expect(seen[0]!.headers["content-type"]).toMatch(/^application\/json/);
    expect(seen[3]!.url.search).toBe("?force=true");
  });

  it("makes every timestamp greater than the last, even when the clock stands still or goes back", async () => {
    let clock = 1_767_225_600_000;
    const client = prettyClient({ now: () => clock });
    await Promise.all(Array.from({ length: 5 }, () => client.get("/sitewright/v1/info")));
    clock -= 10_000;
    await client.get("/sitewright/v1/info");
    const stamps = seen.map((request) => Number(request.headers["x-sitewright-timestamp"])).sort((a, b) => a - b);
    expect(stamps).toEqual([0, 1, 2, 3, 4, 5].map((step) => 1_767_225_600_000 + step));
  });

  it("reuses open connections for consecutive requests instead of a TLS handshake each", async () => {
    const client = prettyClient();
    for (let i = 0; i < 10; i++) await client.get("/sitewright/v1/info");
    await client.close();
    expect(seen).toHaveLength(10);
    expect(connections).toBeLessThanOrEqual(2);
  });

  it("does not reuse a connection once the site's name resolves elsewhere, and checks the new address", async () => {
    const answers = ["127.0.0.1", "127.0.0.2"];
    let asked = 0;
    const client = prettyClient({ resolver: async () => [{ address: answers[Math.min(asked++, 1)]!, family: 4 }] });
    expect((await client.get("/sitewright/v1/info")).status).toBe(200);
    // Nothing listens on 127.0.0.2, so reaching it proves the request left the old pinned connection.
    const error = await failure(client.get("/sitewright/v1/info"));
    expect(error).toMatchObject({ kind: "unreachable", details: { reason: "connect" } });
    const refused = await failure(
      createSiteClient(
        { baseUrl: origin, restUrl: `${origin}/wp-json/`, token: TOKEN, secret: SECRET },
        {
          ...options,
          allowlist: [],
          resolver: async () => [{ address: "10.0.0.1", family: 4 }],
        },
      ).get("/sitewright/v1/info"),
    );
    expect(refused).toMatchObject({ kind: "unreachable", details: { reason: "forbidden_host" } });
    await client.close();
    expect(seen).toHaveLength(1);
  });

  it("reports the plugin's refusal as site_rejected with its code", async () => {
    reply = json(401, { code: "sitewright_bad_signature", message: "Bad signature.", data: { status: 401 } });
    const error = await failure(prettyClient().get("/sitewright/v1/info"));
    expect(error).toMatchObject({
      kind: "rejected",
      code: "site_rejected",
      status: 502,
      siteStatus: 401,
      siteCode: "sitewright_bad_signature",
    });
    expect(error.toJSON().error.details).toEqual({
      kind: "rejected",
      status: 401,
      siteCode: "sitewright_bad_signature",
    });
  });

  it("says a missing page does not exist, and a missing route that the site lacks the feature", async () => {
    reply = json(404, { code: "rest_post_invalid_id", message: "Invalid post ID.", data: { status: 404 } });
    const missingPage = await failure(prettyClient().get("/wp/v2/pages/999"));
    expect(missingPage.message).toBe(
      "That page or item does not exist on the site (it may have been deleted or moved to the trash).",
    );
    reply = json(404, { code: "rest_no_route", message: "No route was found.", data: { status: 404 } });
    const missingRoute = await failure(prettyClient().get("/sitewright/v1/nothing"));
    expect(missingRoute.message).toMatch(/does not offer this feature/);
    expect(missingRoute.message).not.toMatch(/REST route/);
  });

  it("reports a page that is not JSON as a bad response", async () => {
    reply = (_seen, response) => response.writeHead(200, { "content-type": "text/html" }).end("<html>Welcome</html>");
    const error = await failure(prettyClient().get("/sitewright/v1/info"));
    expect(error).toMatchObject({ kind: "bad_response", code: "site_unreachable" });
  });

  it("never follows a redirect, which would carry the token elsewhere", async () => {
    reply = (_seen, response) => response.writeHead(301, { location: "https://evil.test/steal" }).end();
    const error = await failure(prettyClient().get("/sitewright/v1/info"));
    expect(error).toMatchObject({ kind: "bad_response", siteStatus: 301 });
    expect(seen).toHaveLength(1);
  });

  it("reports an oversized response as a bad response", async () => {
    reply = json(200, { blob: "x".repeat(5_000) });
    const error = await failure(prettyClient({ maxResponseBytes: 1_000 }).get("/wp/v2/pages"));
    expect(error).toMatchObject({ kind: "bad_response", details: { reason: "too_large" } });
  });

  it("reports a site that does not answer in time as unreachable", async () => {
    reply = () => undefined;
    const error = await failure(prettyClient({ timeoutMs: 300 }).get("/sitewright/v1/info"));
    expect(error).toMatchObject({ kind: "unreachable", code: "site_unreachable", details: { reason: "timeout" } });
  });

  it("reports a site on a private address as unreachable without contacting it", async () => {
    const client = createSiteClient(
      {
        baseUrl: "https://intranet.example",
        restUrl: "https://intranet.example/wp-json/",
        token: TOKEN,
        secret: SECRET,
      },
      { resolver: async () => [{ address: "10.0.0.5", family: 4 }], allowlist: [] },
    );
    const error = await failure(client.get("/sitewright/v1/info"));
    expect(error).toMatchObject({ kind: "unreachable", details: { reason: "forbidden_host" } });
  });

  it("refuses method overrides, non-flat parameters and odd routes before sending anything", async () => {
    const client = prettyClient();
    const attempts = [
      client.get("/wp/v2/pages", { _method: "DELETE" }),
      client.get("/wp/v2/pages", { _METHOD: "DELETE" }),
      client.get("/wp/v2/pages", { rest_route: "/wp/v2/users" }),
      client.get("/wp/v2/pages", { "status[]": "draft" }),
      client.get("/wp/v2/pages", { "a.b": "1" }),
      client.get("wp/v2/pages"),
      client.get("/wp/v2/pages?x=1"),
      client.get("/wp/v2/../users"),
      client.get("/wp/v2/pages/%31"),
    ];
    for (const attempt of attempts) await expect(attempt).rejects.toBeInstanceOf(AppError);
    expect(seen).toHaveLength(0);
  });

  it("refuses a REST address on another origin than the site", () => {
    expect(() =>
      createSiteClient({
        baseUrl: "https://site.test",
        restUrl: "https://evil.test/wp-json/",
        token: TOKEN,
        secret: SECRET,
      }),
    ).toThrow(AppError);
  });
});
