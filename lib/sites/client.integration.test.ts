/**
 * The signed client against the real Sitewright Connector on a real WordPress 6.1 over https
 * (scripts/site-local). Every tampering case of the contract is refused with its code.
 */
import { createHash, createHmac } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalSite, startLocalSite } from "../../scripts/site-local";
import { PLUGIN_FEATURES } from "../vocabulary";
import { createSiteClient, type SignedSiteClient, SiteRequestError } from "./client";
import { parsePluginInfo, parsePreflight } from "./plugin-schemas";
import { type RawSignedRequest, sendSignedRequest } from "./testing/signed-request";

type Credentials = { token: string; secret: string; scopes: string[] };
type Page = { id: number; title: { raw?: string; rendered: string }; status: string };

let site: LocalSite;
let ca: string;
let writer: Credentials;
let reader: Credentials;
let client: SignedSiteClient;

const connect = (target: LocalSite, credentials: Credentials, restUrl = target.restUrl) =>
  createSiteClient(
    { baseUrl: target.url, restUrl, token: credentials.token, secret: credentials.secret },
    { ca, allowlist: ["localhost"] },
  );
const newCredentials = (target: LocalSite, scopes: string) =>
  target.cli<Credentials>("create-credentials", `--scopes=${scopes}`);

/** One exact request signed with the writer's credentials unless told otherwise. */
const raw = (request: Partial<RawSignedRequest> = {}) =>
  sendSignedRequest({
    restUrl: site.restUrl,
    token: writer.token,
    secret: writer.secret,
    fetch: { ca, allowlist: ["localhost"] },
    ...request,
  });

async function rejection(promise: Promise<unknown>): Promise<SiteRequestError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SiteRequestError);
  return error as SiteRequestError;
}

async function pageTitles(): Promise<string[]> {
  const pages = await client.get<Page[]>("/wp/v2/pages", { status: "draft,publish", context: "edit", per_page: 100 });
  return pages.data.map((page) => page.title.raw ?? "");
}

beforeAll(async () => {
  site = await startLocalSite();
  ca = readFileSync(site.caPath, "utf8");
  writer = await newCredentials(site, "site:read,content:read,content:write");
  reader = await newCredentials(site, "site:read,content:read");
  client = connect(site, writer);
});
afterAll(async () => {
  await site?.stop();
});

describe("signed requests to the real plugin", () => {
  it("answers a signed GET of the plugin's info", async () => {
    const response = await client.get<{ name: string; wordpress: string; restUrl: string }>("/sitewright/v1/info");
    expect(response.status).toBe(200);
    expect(response.data).toMatchObject({ name: "Sitewright Local", restUrl: site.restUrl });
    expect(response.data.wordpress).toMatch(/^\d+\.\d+/);
  });

  it("answers /info and /preflight in the shapes the app parses, with the theme and whether it is a block theme", async () => {
    const info = parsePluginInfo((await client.get("/sitewright/v1/info")).data);
    expect(info.theme).toMatchObject({ name: expect.any(String), stylesheet: expect.any(String) });
    expect(typeof info.theme.isBlockTheme).toBe("boolean");
    for (const feature of info.features) expect(PLUGIN_FEATURES).toContain(feature);
    expect(info.token.scopes).toEqual(writer.scopes);
    const preflight = parsePreflight((await client.get("/sitewright/v1/preflight")).data);
    expect(preflight.checks.length).toBeGreaterThan(0);
  });

  it("creates a page with a signed POST that really changes the site, then reads it back", async () => {
    const title = `Über uns — 私たちについて ${Date.now()}`;
    const created = await client.post<Page>("/wp/v2/pages", { title, content: "<p>Grüße 👋</p>", status: "draft" });
    expect(created.status).toBe(201);
    const read = await client.get<Page>(`/wp/v2/pages/${created.data.id}`, { context: "edit" });
    expect(read.data).toMatchObject({ id: created.data.id, status: "draft", title: { raw: title } });
    expect(await pageTitles()).toContain(title);
  });

  it("updates and deletes through the signed channel with PUT and DELETE", async () => {
    const created = await client.post<Page>("/wp/v2/pages", { title: "to update", status: "draft" });
    const updated = await client.put<Page>(`/wp/v2/pages/${created.data.id}`, { title: "updated" });
    expect(updated.data.title.raw).toBe("updated");
    const deleted = await client.delete<{ deleted: boolean }>(`/wp/v2/pages/${created.data.id}`, { force: true });
    expect(deleted.data.deleted).toBe(true);
    const gone = await rejection(client.get(`/wp/v2/pages/${created.data.id}`));
    expect(gone).toMatchObject({ kind: "rejected", siteStatus: 404 });
  });

  it("lists core /wp/v2/pages with query parameters that need encoding", async () => {
    const title = `Café + crème/brûlée ~ ${Date.now()}`;
    await client.post("/wp/v2/pages", { title, status: "draft" });
    const found = await client.get<Page[]>("/wp/v2/pages", {
      search: "crème/brûlée",
      status: "draft",
      context: "edit",
      per_page: 5,
    });
    expect(found.data.map((page) => page.title.raw)).toContain(title);
  });

  it("works when the REST root is given as ?rest_route=", async () => {
    const plain = connect(site, writer, `${site.url}/?rest_route=/`);
    const response = await plain.get<Page[]>("/wp/v2/pages", { per_page: 1, context: "edit" });
    expect(response.status).toBe(200);
  });
});

describe("what the plugin refuses", () => {
  it.each([
    ["a wrong secret", { signAs: { secret: "swsec_not_the_secret" } }],
    [
      "an altered body",
      { method: "POST", route: "/wp/v2/pages", body: '{"title":"evil"}', signAs: { body: '{"title":"good"}' } },
    ],
    ["an altered route", { route: "/sitewright/v1/preflight", signAs: { route: "/sitewright/v1/info" } }],
    ["an altered query", { route: "/wp/v2/pages", query: [["per_page", "2"]], signAs: { query: [["per_page", "1"]] } }],
    ["an added query parameter", { route: "/wp/v2/pages", query: [["status", "draft"]], signAs: { query: [] } }],
    ["an altered method", { method: "POST", route: "/wp/v2/pages", signAs: { method: "GET" } }],
    ["an altered timestamp", { timestamp: String(Date.now()), signAs: { timestamp: String(Date.now() - 1) } }],
  ] as Array<[string, Partial<RawSignedRequest>]>)("refuses %s as sitewright_bad_signature", async (_name, request) => {
    const response = await raw(request);
    expect({ status: response.status, code: response.code }).toEqual({ status: 401, code: "sitewright_bad_signature" });
  });

  it("refuses a non-flat parameter even when its signature is right", async () => {
    const timestamp = String(Date.now());
    const toSign = `${timestamp}\nGET\n/wp/v2/pages?status%5B%5D=draft\n${createHash("sha256").update("").digest("hex")}`;
    const signature = `v1=${createHmac("sha256", writer.secret).update(toSign).digest("hex")}`;
    const response = await raw({ route: "/wp/v2/pages", query: [["status[]", "draft"]], timestamp, signature });
    expect({ status: response.status, code: response.code }).toEqual({ status: 401, code: "sitewright_bad_signature" });
  });

  it.each([
    "",
    "v1=",
    "v1=zz",
    `v1=${"0".repeat(64)}`,
    `v1=${"a".repeat(63)}`,
    `v2=${"a".repeat(64)}`,
    "x".repeat(8_000),
    "v1=\u00e9",
  ])("answers a malformed signature header %j with 401, never 500", async (signature) => {
    const response = await raw({ signature });
    expect({ status: response.status, code: response.code }).toEqual({ status: 401, code: "sitewright_bad_signature" });
  });

  it.each(["", "abc", "1e12", "-1", " 1767225600000", "1767225600000.5", "9".repeat(17)])(
    "answers a malformed timestamp header %j with 401, never 500",
    async (timestamp) => {
      const response = await raw({ signAs: { timestamp: "1" }, headers: { "x-sitewright-timestamp": timestamp } });
      expect(response.status).toBe(401);
      expect(["sitewright_bad_signature", "sitewright_stale_timestamp"]).toContain(response.code);
    },
  );

  it.each([
    // 310/290 s, not 301/299: the plugin reads its clock after WordPress has booted, up to seconds later on a
    // loaded machine. The exact edges are PHPUnit's (AuthTest, with a fixed now).
    ["310 seconds old", -310_000],
    ["310 seconds ahead", 310_000],
  ])("refuses a timestamp %s as sitewright_stale_timestamp", async (_name, offset) => {
    const response = await raw({ timestamp: String(Date.now() + offset) });
    expect({ status: response.status, code: response.code }).toEqual({
      status: 401,
      code: "sitewright_stale_timestamp",
    });
  });

  it.each([
    ["290 seconds old", -290_000],
    ["290 seconds ahead", 290_000],
  ])("accepts a timestamp %s", async (_name, offset) => {
    const response = await raw({ timestamp: String(Date.now() + offset) });
    expect(response.status).toBe(200);
  });

  it("refuses a replayed request as sitewright_replayed", async () => {
    const first = await raw();
    expect(first.status).toBe(200);
    const again = await raw({ timestamp: first.timestamp, signature: first.signature });
    expect({ status: again.status, code: again.code }).toEqual({ status: 401, code: "sitewright_replayed" });
  });

  it("accepts exactly one of 50 parallel copies of one signed request", async () => {
    const timestamp = String(Date.now());
    const title = `replayed ${timestamp}`;
    const copy = { method: "POST", route: "/wp/v2/pages", body: JSON.stringify({ title, status: "draft" }), timestamp };
    const responses = await Promise.all(Array.from({ length: 50 }, () => raw(copy)));
    const outcomes = responses.map((response) => (response.status < 300 ? "ok" : response.code));
    expect(outcomes.filter((outcome) => outcome === "ok")).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === "sitewright_replayed")).toHaveLength(49);
    expect((await pageTitles()).filter((existing) => existing === title)).toHaveLength(1);
  });

  it("refuses a signed request without a token as sitewright_bad_token", async () => {
    const response = await raw({ token: null });
    expect({ status: response.status, code: response.code }).toEqual({ status: 401, code: "sitewright_bad_token" });
  });

  it("refuses an unknown token as sitewright_bad_token", async () => {
    const response = await raw({ token: `${writer.token.slice(0, -4)}AAAA` });
    expect({ status: response.status, code: response.code }).toEqual({ status: 401, code: "sitewright_bad_token" });
  });

  it("refuses a revoked token as sitewright_bad_token", async () => {
    const doomed = await newCredentials(site, "site:read");
    const doomedClient = connect(site, doomed);
    expect((await doomedClient.get("/sitewright/v1/info")).status).toBe(200);
    expect((await doomedClient.post<{ revoked: boolean }>("/sitewright/v1/revoke")).data).toEqual({ revoked: true });
    const error = await rejection(doomedClient.get("/sitewright/v1/info"));
    expect(error).toMatchObject({
      kind: "rejected",
      code: "site_rejected",
      siteStatus: 401,
      siteCode: "sitewright_bad_token",
    });
  });

  it("refuses a read-only token writing as sitewright_scope, and the site is unchanged", async () => {
    const title = `forbidden ${Date.now()}`;
    const error = await rejection(connect(site, reader).post("/wp/v2/pages", { title, status: "draft" }));
    expect(error).toMatchObject({ kind: "rejected", siteStatus: 403, siteCode: "sitewright_scope" });
    expect(await pageTitles()).not.toContain(title);
    expect((await connect(site, reader).get("/wp/v2/pages")).status).toBe(200);
  });

  it("refuses a method override by _method or X-HTTP-Method-Override, and nothing is deleted", async () => {
    const page = await client.post<Page>("/wp/v2/pages", { title: "keep me", status: "draft" });
    const route = `/wp/v2/pages/${page.data.id}`;
    const byParam = await raw({
      method: "POST",
      route,
      query: [
        ["_method", "DELETE"],
        ["force", "true"],
      ],
    });
    const byHeader = await raw({
      method: "POST",
      route,
      query: [["force", "true"]],
      headers: { "x-http-method-override": "DELETE" },
    });
    for (const response of [byParam, byHeader]) {
      expect({ status: response.status, code: response.code }).toEqual({
        status: 400,
        code: "sitewright_method_override",
      });
    }
    expect((await client.get<Page>(route, { context: "edit" })).data.title.raw).toBe("keep me");
  });

  it("refuses a request signed over an empty body that carries a multipart body, and the page is unchanged", async () => {
    const page = await client.post<Page>("/wp/v2/pages", { title: "multipart target", status: "draft" });
    const route = `/wp/v2/pages/${page.data.id}`;
    const boundary = "----sitewright-probe";
    const multipart = [
      `--${boundary}`,
      'Content-Disposition: form-data; name="title"',
      "",
      "changed through multipart",
      `--${boundary}`,
      'Content-Disposition: form-data; name="status"',
      "",
      "publish",
      `--${boundary}--`,
      "",
    ].join("\r\n");
    const response = await raw({
      method: "POST",
      route,
      body: multipart,
      signAs: { body: "" },
      headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
    });
    expect({ status: response.status, code: response.code }).toEqual({ status: 401, code: "sitewright_bad_signature" });
    const after = (await client.get<Page>(route, { context: "edit" })).data;
    expect({ title: after.title.raw, status: after.status }).toEqual({ title: "multipart target", status: "draft" });
  });

  it("refuses a signed form-encoded body too, though its bytes were hashed", async () => {
    const page = await client.post<Page>("/wp/v2/pages", { title: "form target", status: "draft" });
    const route = `/wp/v2/pages/${page.data.id}`;
    const response = await raw({
      method: "POST",
      route,
      body: "title=changed+through+a+form",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect({ status: response.status, code: response.code }).toEqual({ status: 401, code: "sitewright_bad_signature" });
    expect((await client.get<Page>(route, { context: "edit" })).data.title.raw).toBe("form target");
  });

  it.each([
    [
      "a=1&a=2",
      [
        ["title", "first"],
        ["title", "second"],
      ],
    ],
    [
      "a=2&a=1",
      [
        ["title", "second"],
        ["title", "first"],
      ],
    ],
    [
      "status=draft&status=publish",
      [
        ["title", "first"],
        ["status", "draft"],
        ["status", "publish"],
      ],
    ],
  ] as Array<[string, Array<[string, string]>]>)(
    "refuses a correctly signed query that repeats a name (%s), and the page is unchanged",
    async (_name, query) => {
      const page = await client.post<Page>("/wp/v2/pages", { title: "query target", status: "draft" });
      const route = `/wp/v2/pages/${page.data.id}`;
      const response = await raw({ method: "POST", route, query });
      expect({ status: response.status, code: response.code }).toEqual({
        status: 401,
        code: "sitewright_bad_signature",
      });
      const after = (await client.get<Page>(route, { context: "edit" })).data;
      expect({ title: after.title.raw, status: after.status }).toEqual({ title: "query target", status: "draft" });
    },
  );

  it("reports the plugin's refusal through the client as site_rejected with the plugin's code", async () => {
    const forged = connect(site, { ...writer, secret: "swsec_wrong" });
    const error = await rejection(forged.get("/sitewright/v1/info"));
    expect(error.toJSON().error).toMatchObject({
      code: "site_rejected",
      details: { kind: "rejected", status: 401, siteCode: "sitewright_bad_signature" },
    });
  });
});

/**
 * Stands in for routes another plugin registers after the map was written, shaped like the Abilities API's. Its own
 * namespace: core has /wp-abilities/v1 from 6.9 on (login required), which would answer before this one.
 */
const FAKE_ABILITIES_PLUGIN = `<?php
add_action( 'rest_api_init', static function () {
	register_rest_route( 'other-plugin/v1', '/abilities', array(
		'methods'             => 'GET',
		'callback'            => static function () { return array( 'ran' => get_option( 'sitewright_fake_ability_ran', 'no' ) ); },
		'permission_callback' => '__return_true',
	) );
	register_rest_route( 'other-plugin/v1', '/abilities/(?P<name>[a-z0-9/-]+)/run', array(
		'methods'             => 'GET, POST',
		'callback'            => static function () { update_option( 'sitewright_fake_ability_ran', 'yes' ); return array( 'ran' => true ); },
		'permission_callback' => static function () { return current_user_can( 'read' ); },
	) );
} );
`;

describe("the scope map fails closed", () => {
  beforeAll(() => {
    const muPlugins = join(site.wpPath, "wp-content", "mu-plugins");
    mkdirSync(muPlugins, { recursive: true });
    writeFileSync(join(muPlugins, "fake-abilities.php"), FAKE_ABILITIES_PLUGIN);
  });

  it("refuses every token a route the map does not name, though the route answers anyone else", async () => {
    const before = await site.fetch("/wp-json/other-plugin/v1/abilities");
    expect({ status: before.status, body: JSON.parse(before.body) }).toEqual({ status: 200, body: { ran: "no" } });

    const all = await newCredentials(
      site,
      "site:read,content:read,content:write,media:write,design:write,settings:write",
    );
    for (const credentials of [reader, writer, all]) {
      // The plugin's routes, and core's Abilities API (WordPress 6.9+; refused the same way where it is absent).
      for (const namespace of ["other-plugin/v1", "wp-abilities/v1"]) {
        const listed = await raw({
          route: `/${namespace}/abilities`,
          token: credentials.token,
          secret: credentials.secret,
        });
        expect({ status: listed.status, code: listed.code }).toEqual({ status: 403, code: "sitewright_scope" });
        const ran = await raw({
          method: "POST",
          route: `/${namespace}/abilities/core/get-site-info/run`,
          token: credentials.token,
          secret: credentials.secret,
        });
        expect({ status: ran.status, code: ran.code }).toEqual({ status: 403, code: "sitewright_scope" });
      }
    }
    const after = await site.fetch("/wp-json/other-plugin/v1/abilities");
    expect(JSON.parse(after.body)).toEqual({ ran: "no" });
  });

  it("refuses core routes the agent never needs (users, comments, plugins, the REST index)", async () => {
    for (const route of ["/wp/v2/users", "/wp/v2/comments", "/wp/v2/plugins", "/wp/v2/search", "/"]) {
      const response = await raw({ route });
      expect({ route, status: response.status, code: response.code }).toEqual({
        route,
        status: 403,
        code: "sitewright_scope",
      });
    }
  });
});

describe("a site without pretty permalinks", () => {
  let plainSite: LocalSite;
  let plain: SignedSiteClient;

  beforeAll(async () => {
    plainSite = await startLocalSite({ permalinks: false });
    plain = connect(plainSite, await newCredentials(plainSite, "site:read,content:read,content:write"));
  });
  afterAll(async () => {
    await plainSite?.stop();
  });

  it("answers only ?rest_route=, and the client uses it for reads and writes", async () => {
    expect(plainSite.restUrl).toContain("?rest_route=");
    const prettyPath = await plainSite.fetch("/wp-json/sitewright/v1/info");
    expect(prettyPath.status).not.toBe(200);
    expect(prettyPath.body).not.toContain("sitewright");
    const info = await plain.get<{ permalinks: boolean }>("/sitewright/v1/info");
    expect(info.data.permalinks).toBe(false);
    const created = await plain.post<Page>("/wp/v2/pages", { title: "plain permalinks", status: "draft" });
    const listed = await plain.get<Page[]>("/wp/v2/pages", {
      status: "draft",
      context: "edit",
      search: "plain permalinks",
    });
    expect(listed.data.map((page) => page.id)).toContain(created.data.id);
  });
});
