/**
 * The sandbox routes end to end through the route wrapper, against real Podman and PostgreSQL.
 */
import { rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/lib/db/testing";
import { setSandboxManagerForTests } from "@/lib/sandbox";
import { sandboxConfig } from "@/lib/sandbox/config";
import { SandboxEngine } from "@/lib/sandbox/engine";
import { createTestSandboxes, type TestSandboxes } from "@/lib/sandbox/testing";
import { newUser } from "@/test/accounts";
import { call } from "@/test/http";
import { POST as login } from "./[id]/login/route";
import { DELETE as remove, GET as show } from "./[id]/route";
import { POST as create } from "./route";
import { GET as preview } from "../preview/[sandboxId]/[[...path]]/route";

useTestDatabase();

afterEach(() => setSandboxManagerForTests(undefined));

describe("sandbox routes without an engine configured", () => {
  it("answer 503 sandbox_unavailable when SANDBOX_DRIVER is unset", async () => {
    const user = await newUser();
    const created = await call(create, { body: {}, cookie: user.cookie });
    expect(created.status).toBe(503);
    expect(created.json.error.code).toBe("sandbox_unavailable");
    const shown = await call(show, { cookie: user.cookie, params: { id: "00000000-0000-0000-0000-000000000000" } });
    expect(shown.status).toBe(503);
  });
});

describe("sandbox routes", () => {
  let t: TestSandboxes;
  beforeAll(async () => {
    t = createTestSandboxes({ poolSize: 1, max: 2 });
    await t.manager.image();
    await t.manager.fillPool();
  });
  afterAll(() => t.cleanup());

  it("create a sandbox for a logged-in user, show it to its owner only, and delete it", async () => {
    await setSandboxManagerForTests(t.manager);
    const owner = await newUser();
    const stranger = await newUser();

    const created = await call(create, { body: { ttlMinutes: 20 }, cookie: owner.cookie });
    expect(created.status).toBe(201);
    const sandbox = created.json.sandbox;
    expect(sandbox).toMatchObject({ status: "ready", fromPool: true });
    expect(sandbox.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(sandbox.url).toBe(`${t.config.appUrl}/preview/${sandbox.id}/`);
    expect(sandbox.previewUrl).toBe(sandbox.url);
    expect(JSON.stringify(created.json)).not.toMatch(/127\.0\.0\.1/);
    const direct = await t.directUrl(sandbox.id);
    expect(Date.parse(sandbox.expiresAt)).toBeGreaterThan(Date.now() + 19 * 60_000);

    const theirs = await call(show, { cookie: stranger.cookie, params: { id: sandbox.id } });
    expect(theirs.status).toBe(404);
    expect(theirs.json.error.code).toBe("not_found");
    expect((await call(remove, { method: "DELETE", cookie: stranger.cookie, params: { id: sandbox.id } })).status).toBe(
      404,
    );
    expect((await call(login, { method: "POST", cookie: stranger.cookie, params: { id: sandbox.id } })).status).toBe(
      404,
    );

    const mine = await call(show, { cookie: owner.cookie, params: { id: sandbox.id } });
    expect(mine.status).toBe(200);
    expect(mine.json.sandbox).toMatchObject({ id: sandbox.id, status: "ready", url: sandbox.url });
    expect(mine.json.sandbox.manifest.imageTag).toBe(await t.manager.image());

    const link = await call(login, { method: "POST", cookie: owner.cookie, params: { id: sandbox.id } });
    expect(link.status).toBe(200);
    expect(link.json.login.url.startsWith(`${sandbox.previewUrl}?sitewright_login=`)).toBe(true);
    const signIn = await call(preview, {
      path: new URL(link.json.login.url).pathname + new URL(link.json.login.url).search,
      cookie: owner.cookie,
      params: { sandboxId: sandbox.id },
    });
    expect(signIn.status).toBe(302);
    expect(signIn.headers.get("location")).toBe(`${sandbox.previewUrl}wp-admin/`);

    const deleted = await call(remove, { method: "DELETE", cookie: owner.cookie, params: { id: sandbox.id } });
    expect(deleted.status).toBe(204);
    expect((await call(show, { cookie: owner.cookie, params: { id: sandbox.id } })).status).toBe(404);
    await expect(fetch(`${direct}/wp-json/`, { signal: AbortSignal.timeout(2000) })).rejects.toThrow();
  });

  it("open the preview for its owner only; WordPress's own static files for anyone naming the sandbox", async () => {
    await setSandboxManagerForTests(t.manager);
    const owner = await newUser();
    const stranger = await newUser();
    const { sandbox } = (await call(create, { body: {}, cookie: owner.cookie })).json;
    const open = (path: string, options: { cookie?: string; method?: string } = {}) =>
      call(preview, {
        path: `/preview/${sandbox.id}${path}`,
        params: { sandboxId: sandbox.id },
        ...(options.cookie ? { cookie: options.cookie } : {}),
        ...(options.method ? { method: options.method } : {}),
      });

    const home = await open("/", { cookie: owner.cookie });
    expect(home.status).toBe(200);
    expect(home.text).toContain(`${t.config.appUrl}/preview/${sandbox.id}/`);
    expect(home.text).not.toMatch(/127\.0\.0\.1/);
    expect(home.headers.get("content-security-policy")).toMatch(/^sandbox allow-scripts/);
    // The owner's session never reaches the sandbox; the grant cookie is scoped to this preview.
    const grant = home.setCookie.find((c) => c.startsWith("sw_preview="))!;
    expect(grant).toContain(`Path=/preview/${sandbox.id}/`);
    expect(grant).toContain("HttpOnly");
    // The grant alone opens it (a page's own sub-requests carry no Lax session cookie).
    expect((await open("/wp-json/", { cookie: grant.split(";")[0] })).status).toBe(200);
    // Anyone else: 404, for pages, the REST API and writes alike; a forged grant too.
    for (const cookie of [stranger.cookie, undefined, `sw_preview=9999999999.${"0".repeat(64)}`]) {
      expect((await open("/", { cookie })).status).toBe(404);
      expect((await open("/wp-json/wp/v2/pages", { cookie })).status).toBe(404);
      expect((await open("/wp-login.php", { cookie, method: "POST" })).status).toBe(404);
    }
    // Core's static files are the same in every sandbox and load cross-site from the preview's opaque origin.
    const css = await open("/wp-includes/css/dashicons.min.css");
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toMatch(/text\/css/);
    expect((await open("/wp-includes/../wp-config.php")).status).toBe(404);
    const unknown = "00000000-0000-0000-0000-000000000000";
    const nobody = await call(preview, {
      path: `/preview/${unknown}/`,
      params: { sandboxId: unknown },
      cookie: owner.cookie,
    });
    expect(nobody.status).toBe(404);
    expect((await call(remove, { method: "DELETE", cookie: owner.cookie, params: { id: sandbox.id } })).status).toBe(
      204,
    );
  });

  it("refuse anonymous callers, bad input and cross-site requests", async () => {
    await setSandboxManagerForTests(t.manager);
    const user = await newUser();
    expect((await call(create, { body: {} })).status).toBe(401);
    const bad = await call(create, { body: { ttlMinutes: 0 }, cookie: user.cookie });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe("invalid_input");
    const crossSite = await call(create, {
      body: {},
      cookie: user.cookie,
      headers: { origin: "https://evil.example" },
    });
    expect(crossSite.status).toBe(403);
  });

  it("answer 429 capacity_reached when SANDBOX_MAX sandboxes are in use", async () => {
    await setSandboxManagerForTests(t.manager);
    const user = await newUser();
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await call(create, { body: {}, cookie: user.cookie });
      expect(res.status).toBe(201);
      ids.push(res.json.sandbox.id);
    }
    const full = await call(create, { body: {}, cookie: user.cookie });
    expect(full.status).toBe(429);
    expect(full.json.error.code).toBe("capacity_reached");
    for (const id of ids) await call(remove, { method: "DELETE", cookie: user.cookie, params: { id } });
  });
});

describe("each user's share of sandboxes", () => {
  let t: TestSandboxes;
  beforeAll(async () => {
    t = createTestSandboxes({ poolSize: 0, max: 10, maxPerUser: 1 });
    await t.manager.image();
  });
  afterAll(() => t.cleanup());

  it("answers 429 capacity_reached with Retry-After to a user holding their share, not to another user", async () => {
    await setSandboxManagerForTests(t.manager);
    const greedy = await newUser();
    const other = await newUser();
    expect((await call(create, { body: {}, cookie: greedy.cookie })).status).toBe(201);
    const refused = await call(create, { body: {}, cookie: greedy.cookie });
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe("capacity_reached");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await call(create, { body: {}, cookie: other.cookie })).status).toBe(201);
  });
});

/** A unix socket in front of the engine's, which a test can cut and restore like an engine going away. */
async function engineProxy(target: string) {
  const path = join(tmpdir(), `sitewright-engine-${process.pid}-${Date.now()}.sock`);
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  const up = () =>
    new Promise<void>((resolve) => {
      rmSync(path, { force: true });
      server = net.createServer((client) => {
        const upstream = net.connect(target);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on("close", () => sockets.delete(s));
          s.on("error", () => s.destroy());
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(path, resolve);
    });
  const down = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      if (!server) return resolve();
      server.close(() => resolve());
      server = undefined;
    });
  await up();
  return { dockerHost: `unix://${path}`, up, down, remove: () => rmSync(path, { force: true }) };
}

describe("sandbox routes when the engine goes away", () => {
  it("answer 503 sandbox_unavailable while the engine is unreachable, and work again when it returns", async () => {
    const real = sandboxConfig().dockerHost!.replace(/^unix:\/\//, "");
    const proxy = await engineProxy(real);
    const t = createTestSandboxes(
      { poolSize: 0, dockerHost: proxy.dockerHost },
      { engine: new SandboxEngine({ dockerHost: proxy.dockerHost }) },
    );
    try {
      await setSandboxManagerForTests(t.manager);
      await t.manager.image();
      const user = await newUser();

      await proxy.down();
      const refused = await call(create, { body: {}, cookie: user.cookie });
      expect(refused.status).toBe(503);
      expect(refused.json.error.code).toBe("sandbox_unavailable");
      expect(refused.headers.get("retry-after")).toBeTruthy();

      await proxy.up();
      const created = await call(create, { body: {}, cookie: user.cookie });
      expect(created.status).toBe(201);
      expect(created.json.sandbox.status).toBe("ready");
    } finally {
      await proxy.up();
      await t.cleanup();
      await proxy.down();
      proxy.remove();
    }
  });
});
