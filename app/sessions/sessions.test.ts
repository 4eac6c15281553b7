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
    expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(Date.parse(sandbox.expiresAt)).toBeGreaterThan(Date.now() + 19 * 60_000);

    const theirs = await call(show, { cookie: stranger.cookie, params: { id: sandbox.id } });
    expect(theirs.status).toBe(404);
    expect(theirs.json.error.code).toBe("not_found");
    expect((await call(remove, { method: "DELETE", cookie: stranger.cookie, params: { id: sandbox.id } })).status).toBe(404);
    expect((await call(login, { method: "POST", cookie: stranger.cookie, params: { id: sandbox.id } })).status).toBe(404);

    const mine = await call(show, { cookie: owner.cookie, params: { id: sandbox.id } });
    expect(mine.status).toBe(200);
    expect(mine.json.sandbox).toMatchObject({ id: sandbox.id, status: "ready", url: sandbox.url });
    expect(mine.json.sandbox.manifest.imageTag).toBe(await t.manager.image());

    const link = await call(login, { method: "POST", cookie: owner.cookie, params: { id: sandbox.id } });
    expect(link.status).toBe(200);
    expect((await fetch(link.json.login.url, { redirect: "manual" })).status).toBe(302);

    const deleted = await call(remove, { method: "DELETE", cookie: owner.cookie, params: { id: sandbox.id } });
    expect(deleted.status).toBe(204);
    expect((await call(show, { cookie: owner.cookie, params: { id: sandbox.id } })).status).toBe(404);
    await expect(fetch(`${sandbox.url}/wp-json/`, { signal: AbortSignal.timeout(2000) })).rejects.toThrow();
  });

  it("refuse anonymous callers, bad input and cross-site requests", async () => {
    await setSandboxManagerForTests(t.manager);
    const user = await newUser();
    expect((await call(create, { body: {} })).status).toBe(401);
    const bad = await call(create, { body: { ttlMinutes: 0 }, cookie: user.cookie });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe("invalid_input");
    const crossSite = await call(create, { body: {}, cookie: user.cookie, headers: { origin: "https://evil.example" } });
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
    const t = createTestSandboxes({ poolSize: 0, dockerHost: proxy.dockerHost }, { engine: new SandboxEngine({ dockerHost: proxy.dockerHost }) });
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
