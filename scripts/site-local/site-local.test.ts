/**
 * The local https WordPress that every integration test uses: it boots, serves the plugin over https with the
 * test CA, refuses anonymous calls to every plugin route, provisions credentials, and the plugin's admin screen
 * connects to a service (here a small https endpoint on loopback that answers /sites/redeem as the contract says).
 */
import { once } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sign } from "../../lib/sites/signing";
import { ensureTestCa } from "../lib/tls";
import { type LocalResponse, type LocalSite, startLocalSite } from "./index";

type Credentials = { token: string; secret: string; scopes: string[] };
type Status = { tokens: Array<{ status: string; scopes: string[]; last_four: string; confirmed_at: number | null }> };

let lastTimestamp = 0;
function signedHeaders(
  creds: { token: string; secret: string },
  method: string,
  route: string,
): Record<string, string> {
  const timestamp = Math.max(Date.now(), lastTimestamp + 1);
  lastTimestamp = timestamp;
  return {
    authorization: `Bearer ${creds.token}`,
    "x-sitewright-timestamp": String(timestamp),
    "x-sitewright-signature": sign(creds.secret, { timestamp, method, route }),
  };
}

describe("the local WordPress site", () => {
  let site: LocalSite;

  beforeAll(async () => {
    site = await startLocalSite();
  });
  afterAll(async () => {
    await site?.stop();
  });

  it("serves WordPress over https on localhost with a certificate the test CA vouches for", async () => {
    expect(site.url).toMatch(/^https:\/\/localhost:\d+$/);
    expect(site.restUrl).toBe(`${site.url}/wp-json/`);
    // Plain fetch: trusts the CA only through NODE_EXTRA_CA_CERTS, set by the vitest global setup.
    const response = await fetch(site.restUrl);
    expect(response.status).toBe(200);
    const index = (await response.json()) as { home: string; namespaces: string[] };
    expect(index.home).toBe(site.url);
    expect(index.namespaces).toContain("sitewright/v1");
    expect(site.caPath).toBe(ensureTestCa().caCert);
  });

  it("has Sitewright Connector active and the admin login works", async () => {
    const status = await site.cli<{ plugin: string; agentUser: number }>("status");
    expect(status.plugin).toMatch(/^\d+\.\d+\.\d+$/);
    expect(status.agentUser).toBeGreaterThan(0);
    const admin = await adminSession(site);
    const page = await admin.get("/wp-admin/options-general.php?page=sitewright");
    expect(page.status).toBe(200);
    expect(page.body).toContain('id="sitewright-connect"');
  });

  it("refuses anonymous calls to every sitewright/v1 route listed in the REST index", async () => {
    const index = JSON.parse((await site.fetch("/wp-json/")).body) as {
      routes: Record<string, { namespace: string; methods: string[] }>;
    };
    const routes = Object.entries(index.routes).filter(
      ([route, info]) => info.namespace === "sitewright/v1" && route !== "/sitewright/v1",
    );
    expect(routes.map(([route]) => route).sort()).toEqual([
      "/sitewright/v1/custom-css",
      "/sitewright/v1/export",
      "/sitewright/v1/import",
      "/sitewright/v1/info",
      "/sitewright/v1/items",
      "/sitewright/v1/items/visibility",
      "/sitewright/v1/media",
      "/sitewright/v1/preflight",
      "/sitewright/v1/purge",
      "/sitewright/v1/revoke",
    ]);
    for (const [route, info] of routes) {
      for (const method of info.methods) {
        const res = await site.fetch(`/wp-json${route}`, { method });
        expect([401, 403], `${method} ${route}`).toContain(res.status);
        if (method !== "HEAD") expect(JSON.parse(res.body).code, `${method} ${route}`).toBe("sitewright_bad_token");
      }
    }
  });

  it("provisions working credentials from the command line, and revokes them all", async () => {
    const creds = await site.cli<Credentials>("create-credentials", "--scopes=site:read,content:read");
    expect(creds.token).toMatch(/^swt_[A-Za-z0-9_-]{43}$/);
    expect(creds.secret).toMatch(/^sws_[A-Za-z0-9_-]{43}$/);
    expect(creds.scopes).toEqual(["site:read", "content:read"]);

    const info = await site.fetch("/wp-json/sitewright/v1/info", {
      headers: signedHeaders(creds, "GET", "/sitewright/v1/info"),
    });
    expect(info.status).toBe(200);
    expect(JSON.parse(info.body)).toMatchObject({
      homeUrl: site.url,
      pageBuilder: "gutenberg",
      token: { scopes: ["site:read", "content:read"] },
    });

    const revoked = await site.cli<{ revoked: number }>("revoke-all");
    expect(revoked.revoked).toBeGreaterThanOrEqual(1);
    const after = await site.fetch("/wp-json/sitewright/v1/info", {
      headers: signedHeaders(creds, "GET", "/sitewright/v1/info"),
    });
    expect(after.status).toBe(401);
    expect(JSON.parse(after.body).code).toBe("sitewright_bad_token");
  });

  it("refuses unknown scopes on the command line", async () => {
    await expect(site.cli("create-credentials", "--scopes=site:read,root")).rejects.toThrow(/Unknown scopes: root/);
  });

  describe("the Connect form of Settings → Sitewright", () => {
    let service: StubService;
    beforeAll(async () => {
      service = await startRedeemEndpoint();
    });
    afterAll(async () => {
      await service?.close();
    });

    it("says how many attempts are left after a wrong code, and keeps no credentials", async () => {
      await site.cli("revoke-all");
      service.answer = {
        status: 401,
        body: { error: { code: "invalid_code", message: "Wrong code.", details: { attemptsLeft: 3 } } },
      };
      const admin = await adminSession(site);
      const page = await admin.connect(service.url, "BCDF-GHJK", ["site:read", "content:read"]);
      expect(page).toContain("That code is not right. 3 attempts left.");
      expect(page).toContain('data-outcome="invalid_code"');
      expect(page).toContain('data-status="disconnected"');

      const sent = service.requests.at(-1) as Record<string, unknown>;
      expect(sent).toMatchObject({
        code: "BCDF-GHJK",
        siteUrl: site.url,
        restUrl: site.restUrl,
        plugin: { version: expect.any(String) },
      });
      expect((await site.cli<Status>("status")).tokens).toEqual([]);
    });

    it.each([
      [410, "code_expired", "That code has expired."],
      [429, "locked", "this pairing is locked"],
      [409, "code_used", "already used"],
      [404, "no_pending_pairing", "Sitewright is not waiting for"],
    ])("explains a %i %s in words", async (status, code, words) => {
      service.answer = { status, body: { error: { code, message: "x" } } };
      const admin = await adminSession(site);
      const page = await admin.connect(service.url, "BCDFGHJK", ["site:read"]);
      expect(page).toContain(words);
      expect((await site.cli<Status>("status")).tokens).toEqual([]);
    });

    it("says so when the service cannot be reached", async () => {
      const admin = await adminSession(site);
      const page = await admin.connect("https://localhost:9", "BCDFGHJK", ["site:read"]);
      expect(page).toContain("Could not reach Sitewright");
      expect((await site.cli<Status>("status")).tokens).toEqual([]);
    });

    it("connects with the ticked scopes, and the credentials it sent sign requests until the admin revokes them", async () => {
      service.answer = { status: 200, body: { siteId: "site_1" } };
      const admin = await adminSession(site);
      const page = await admin.connect(service.url, "bcdf ghjk", ["site:read", "content:read"]);
      expect(page).toContain("Connected.");
      expect(page).toContain('data-status="connected"');

      const sent = service.requests.at(-1) as {
        token: string;
        secret: string;
        site: { scopes: string[]; name: string };
      };
      expect(sent.site).toMatchObject({ scopes: ["site:read", "content:read"], name: "Sitewright Local" });
      const [token] = (await site.cli<Status>("status")).tokens;
      expect(token).toMatchObject({
        status: "active",
        scopes: ["site:read", "content:read"],
        last_four: sent.token.slice(-4),
        confirmed_at: null,
      });

      const info = await site.fetch("/wp-json/sitewright/v1/info", {
        headers: signedHeaders(sent, "GET", "/sitewright/v1/info"),
      });
      expect(info.status).toBe(200);
      expect((await site.cli<Status>("status")).tokens[0]?.confirmed_at).not.toBeNull();

      const revokedPage = await admin.revoke();
      expect(revokedPage).toContain("Disconnected");
      const after = await site.fetch("/wp-json/sitewright/v1/info", {
        headers: signedHeaders(sent, "GET", "/sitewright/v1/info"),
      });
      expect(after.status).toBe(401);
    });

    it("refuses a Connect without a valid nonce, and nothing reaches the service", async () => {
      const admin = await adminSession(site);
      const before = service.requests.length;
      const res = await admin.post("/wp-admin/admin-post.php", {
        action: "sitewright_connect",
        _wpnonce: "0000000000",
        sitewright_service_url: service.url,
        sitewright_code: "BCDFGHJK",
        "sitewright_scopes[]": "site:read",
      });
      expect(res.status).toBe(403);
      expect(service.requests.length).toBe(before);
      expect((await site.cli<Status>("status")).tokens).toEqual([]);
    });
  });
});

describe("a local site without pretty permalinks", () => {
  it("answers only at ?rest_route=, and stop() removes its processes and files", async () => {
    const site = await startLocalSite({ permalinks: false });
    try {
      expect(site.restUrl).toBe(`${site.url}/index.php?rest_route=/`);
      const creds = await site.cli<Credentials>("create-credentials", "--scopes=site:read");
      const viaQuery = await site.fetch("/?rest_route=/sitewright/v1/preflight", {
        headers: signedHeaders(creds, "GET", "/sitewright/v1/preflight"),
      });
      expect(viaQuery.status).toBe(200);
      const checks = JSON.parse(viaQuery.body).checks as Array<{ id: string; status: string }>;
      expect(checks.find((check) => check.id === "permalinks")?.status).toBe("warn");
      expect(checks.find((check) => check.id === "https")?.status).toBe("pass");
      const viaPath = await site.fetch("/wp-json/sitewright/v1/info");
      expect(viaPath.status).not.toBe(200);
      expect(viaPath.body).not.toContain("sitewright_");
    } finally {
      await site.stop();
    }
    expect(existsSync(site.dir)).toBe(false);
    await expect(site.fetch("/")).rejects.toThrow();
  });
});

type StubService = {
  url: string;
  answer: { status: number; body: unknown };
  requests: unknown[];
  close(): Promise<void>;
};

/** The service's side of /sites/redeem, answering what each test sets; served with the test CA's certificate. */
async function startRedeemEndpoint(): Promise<StubService> {
  const tls = ensureTestCa();
  const state: StubService = {
    url: "",
    answer: { status: 200, body: { siteId: "x" } },
    requests: [],
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
  const server: Server = createServer({ cert: readFileSync(tls.cert), key: readFileSync(tls.key) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/sites/redeem") {
        res.writeHead(404).end();
        return;
      }
      state.requests.push(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      res.writeHead(state.answer.status, { "content-type": "application/json" }).end(JSON.stringify(state.answer.body));
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  state.url = `https://localhost:${(server.address() as AddressInfo).port}`;
  return state;
}

type AdminSession = {
  get(path: string): Promise<LocalResponse>;
  post(path: string, form: Record<string, string | string[]>): Promise<LocalResponse>;
  connect(serviceUrl: string, code: string, scopes: string[]): Promise<string>;
  revoke(): Promise<string>;
};

/** Logs in to wp-admin with the site's admin account and keeps the cookies. */
async function adminSession(site: LocalSite): Promise<AdminSession> {
  const cookies = new Map<string, string>([["wordpress_test_cookie", "WP%20Cookie%20check"]]);
  const remember = (res: LocalResponse) => {
    const set = res.headers["set-cookie"];
    for (const line of Array.isArray(set) ? set : set ? [set] : []) {
      const [pair] = line.split(";");
      const [name, ...value] = (pair ?? "").split("=");
      if (name) cookies.set(name.trim(), value.join("="));
    }
    return res;
  };
  const cookieHeader = () => [...cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  const get = async (path: string) => remember(await site.fetch(path, { headers: { cookie: cookieHeader() } }));
  const post = async (path: string, form: Record<string, string | string[]>) => {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(form))
      for (const v of Array.isArray(value) ? value : [value]) body.append(name, v);
    return remember(
      await site.fetch(path, {
        method: "POST",
        headers: { cookie: cookieHeader(), "content-type": "application/x-www-form-urlencoded" },
        body: body.toString(),
      }),
    );
  };
  const login = await post("/wp-login.php", {
    log: site.adminUser,
    pwd: site.adminPassword,
    "wp-submit": "Log In",
    testcookie: "1",
  });
  if (login.status !== 302) throw new Error(`wp-admin login failed with ${login.status}`);

  const settingsPath = "/wp-admin/options-general.php?page=sitewright";
  const nonceOf = (html: string, action: string) => {
    const form = html.slice(html.indexOf(`value="${action}"`));
    const match = /name="_wpnonce" value="([0-9a-f]+)"/.exec(form);
    if (!match?.[1]) throw new Error(`No nonce for ${action}`);
    return match[1];
  };
  const submit = async (form: Record<string, string | string[]>) => {
    const res = await post("/wp-admin/admin-post.php", form);
    if (res.status !== 302) throw new Error(`admin-post answered ${res.status}: ${res.body.slice(0, 300)}`);
    return (await get(settingsPath)).body;
  };
  return {
    get,
    post,
    async connect(serviceUrl, code, scopes) {
      const page = (await get(settingsPath)).body;
      return submit({
        action: "sitewright_connect",
        _wpnonce: nonceOf(page, "sitewright_connect"),
        sitewright_service_url: serviceUrl,
        sitewright_code: code,
        "sitewright_scopes[]": scopes,
      });
    },
    async revoke() {
      const page = (await get(settingsPath)).body;
      return submit({ action: "sitewright_revoke", _wpnonce: nonceOf(page, "sitewright_revoke") });
    },
  };
}
