/**
 * Sandboxes against the real engine (Podman through its Docker API) and real PostgreSQL: pool and cold starts,
 * the signed client inside a sandbox, capacity, GC of expired and orphaned containers, hardening, the GC lease.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { advanceClockForTests } from "@/lib/clock";
import { countSandboxes, findSandboxById, insertUser, listSandboxes, takeSandboxLease, updateSandbox } from "@/lib/db/queries";
import { useTestDatabase } from "@/lib/db/testing";
import { AppError } from "@/lib/errors";
import { createSiteClient } from "@/lib/sites/client";
import { SiteRequestError } from "@/lib/sites/client";
import { LABEL_EXPIRES, LABEL_NAMESPACE, LABEL_OWNER, LABEL_SANDBOX, SANDBOX_LIMITS } from "./engine";
import { collectGarbage, GC_LEASE } from "./gc";
import { createTestSandboxes, type TestSandboxes } from "./testing";

useTestDatabase();

/** The capabilities engines grant by default: every one of them must be dropped. */
const DEFAULT_CAPABILITIES = ["AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD", "NET_BIND_SERVICE", "NET_RAW", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"];

let userCount = 0;
async function newUserId() {
  const id = `user-${randomUUID()}`;
  await insertUser({ id, email: `sandbox${userCount++}-${id}@example.com`, name: null, passwordHash: "unused", createdAt: new Date() });
  return id;
}

async function expectAppError(promise: Promise<unknown>, code: string, status: number) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe(code);
  expect((error as AppError).status).toBe(status);
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("condition not met in time");
}

describe("the warm pool", () => {
  let t: TestSandboxes;
  beforeAll(async () => {
    t = createTestSandboxes({ poolSize: 2 });
    await t.manager.image();
  });
  afterAll(() => t.cleanup());

  it("hands out a warm sandbox from the pool quickly and refills the pool in the background", async () => {
    await t.manager.fillPool();
    expect(await countSandboxes({ statuses: ["pooled"] })).toBe(2);

    const userId = await newUserId();
    const started = performance.now();
    const sandbox = await t.manager.createSession({ userId });
    const elapsed = performance.now() - started;

    expect(sandbox.fromPool).toBe(true);
    expect(sandbox.status).toBe("ready");
    expect(elapsed).toBeLessThan(500);
    const index = await fetch(`${sandbox.url}/wp-json/`);
    expect(index.status).toBe(200);
    expect((await index.json()).namespaces).toContain("sitewright/v1");

    await waitFor(async () => (await countSandboxes({ statuses: ["pooled"] })) === 2);
  });
});

describe("a sandbox started cold", () => {
  let t: TestSandboxes;
  let userId: string;
  let sandbox: Awaited<ReturnType<TestSandboxes["manager"]["createSession"]>>;
  beforeAll(async () => {
    t = createTestSandboxes({ poolSize: 0 });
    await t.manager.image();
    userId = await newUserId();
    sandbox = await t.manager.createSession({ userId, ttlMinutes: 30 });
  });
  afterAll(() => t.cleanup());

  it("starts cold when the pool is empty and answers WordPress REST", async () => {
    expect(sandbox.fromPool).toBe(false);
    expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const pages = await fetch(`${sandbox.url}/wp-json/wp/v2/pages`);
    expect(pages.status).toBe(200);
    expect(Array.isArray(await pages.json())).toBe(true);
    expect(new Date(sandbox.expiresAt).getTime() - new Date(sandbox.createdAt).getTime()).toBe(30 * 60_000);
  });

  it("has the plugin connected, so the signed client works against it as against a live site", async () => {
    const client = await t.manager.clientForSession({ userId, id: sandbox.id });
    const info = await client.get<{ name: string; wordpress: string }>("/sitewright/v1/info");
    expect(info.data.wordpress).toMatch(/^6\.1/);

    const created = await client.post<{ id: number; status: string }>("/wp/v2/pages", { title: "Made by the agent", status: "publish", content: "<p>Hello</p>" });
    expect(created.status).toBe(201);
    const read = await client.get<{ title: { rendered: string } }>(`/wp/v2/pages/${created.data.id}`);
    expect(read.data.title.rendered).toBe("Made by the agent");

    // The same request with wrong credentials is refused by the plugin: the connection is really checked.
    const forged = createSiteClient(
      { baseUrl: sandbox.url!, restUrl: `${sandbox.url}/wp-json/`, token: "swt_forged", secret: "not-the-secret" },
      { allowHttp: true, allowlist: ["127.0.0.1"] },
    );
    const refused = await forged.post("/wp/v2/pages", { title: "nope" }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SiteRequestError);
    expect((refused as SiteRequestError).siteStatus).toBe(401);
  });

  it("gave its credentials out once: the provisioning route refuses anyone else", async () => {
    for (const token of ["0".repeat(64), ""]) {
      const response = await fetch(`${sandbox.url}/wp-json/sitewright-sandbox/v1/provision`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-sitewright-provision": token },
        body: JSON.stringify({ scopes: ["site:read"] }),
      });
      expect([401, 403]).toContain(response.status);
      expect(await response.text()).not.toMatch(/"secret"/);
    }
  });

  it("returns its manifest with the image tag and its times", async () => {
    const view = await t.manager.getSession({ userId, id: sandbox.id });
    expect(view.manifest?.imageTag).toBe(await t.manager.image());
    expect(view.manifest?.items).toEqual([]);
    expect(view.manifest?.expiresAt).toBe(sandbox.expiresAt);
  });

  it("runs hardened, as read back from the engine", async () => {
    const row = await findSandboxById({ id: sandbox.id });
    const info = (await t.engine.inspect(row!.containerId!))!;
    const host = info.HostConfig;
    expect(host.Privileged).toBe(false);
    // Docker keeps "ALL"; Podman lists every capability it dropped.
    const dropped = ((host.CapDrop ?? []) as string[]).map((c) => c.replace(/^CAP_/, ""));
    if (!dropped.includes("ALL")) expect(dropped).toEqual(expect.arrayContaining(DEFAULT_CAPABILITIES));
    expect(host.CapAdd ?? []).toEqual([]);
    expect(host.SecurityOpt).toContain("no-new-privileges");
    expect(host.ReadonlyRootfs).toBe(true);
    expect(host.Memory).toBe(SANDBOX_LIMITS.memoryBytes);
    expect(host.NanoCpus).toBe(SANDBOX_LIMITS.nanoCpus);
    expect(host.PidsLimit).toBe(SANDBOX_LIMITS.pids);
    const bindings = Object.values(info.NetworkSettings.Ports ?? {}).flat().filter(Boolean);
    expect(bindings.length).toBe(1);
    for (const binding of bindings) expect(binding!.HostIp).toBe("127.0.0.1");
    expect(info.Config.User).toBe("10001:10001");
    expect(info.Config.Labels[LABEL_SANDBOX]).toBe(sandbox.id);
    expect(info.Config.Labels[LABEL_OWNER]).toBe(userId);
    expect(info.Config.Labels[LABEL_NAMESPACE]).toBe(t.namespace);
    expect(Date.parse(info.Config.Labels[LABEL_EXPIRES]!)).toBe(Date.parse(sandbox.expiresAt));
    // No service secret and no engine socket reach the container.
    const env = (info.Config.Env ?? []).join("\n");
    expect(env).not.toMatch(/ENCRYPTION_KEY|SESSION_SECRET|DATABASE_URL|OPENAI|DOCKER_HOST/);
    for (const mount of info.Mounts ?? []) expect(String(mount.Source)).not.toMatch(/docker\.sock|podman\.sock/);
  });

  it("runs hardened, as seen from inside: no new privileges, no capabilities, not root, read-only root", async () => {
    const row = await findSandboxById({ id: sandbox.id });
    const status = await t.engine.exec(row!.containerId!, ["cat", "/proc/self/status"]);
    expect(status.stdout).toMatch(/^NoNewPrivs:\s+1$/m);
    expect(status.stdout).toMatch(/^CapEff:\s+0000000000000000$/m);
    expect(status.stdout).toMatch(/^CapBnd:\s+0000000000000000$/m);
    expect(status.stdout).toMatch(/^Uid:\s+10001\s/m);
    const write = await t.engine.exec(row!.containerId!, ["sh", "-c", "touch /srv/wordpress/x 2>&1; echo $?"]);
    expect(write.stdout).toMatch(/Read-only file system/);
    const socket = await t.engine.exec(row!.containerId!, ["sh", "-c", "test -e /run/podman/podman.sock || test -e /var/run/docker.sock; echo $?"]);
    expect(socket.stdout.trim()).toBe("1");
  });

  it("gives another user's sandbox as not found", async () => {
    const stranger = await newUserId();
    await expectAppError(t.manager.getSession({ userId: stranger, id: sandbox.id }), "not_found", 404);
    await expectAppError(t.manager.deleteSession({ userId: stranger, id: sandbox.id }), "not_found", 404);
    expect(await findSandboxById({ id: sandbox.id })).toBeDefined();
  });

  it("signs its owner into wp-admin with a link that works once", async () => {
    const login = await t.manager.createLoginLink({ userId, id: sandbox.id });
    expect(login.url.startsWith(`${sandbox.url}/?sitewright_login=`)).toBe(true);
    const first = await fetch(login.url, { redirect: "manual" });
    expect(first.status).toBe(302);
    expect(first.headers.get("location")).toBe(`${sandbox.url}/wp-admin/`);
    const cookies = first.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    expect(cookies).toMatch(/wordpress_logged_in_/);
    const admin = await fetch(`${sandbox.url}/wp-admin/`, { headers: { cookie: cookies }, redirect: "manual" });
    expect(admin.status).toBe(200);
    expect(await admin.text()).toContain("Dashboard");
    const again = await fetch(login.url, { redirect: "manual" });
    expect(again.status).toBe(403);
  });

  it("removes the sandbox and its container when the owner deletes it", async () => {
    const row = await findSandboxById({ id: sandbox.id });
    await t.manager.deleteSession({ userId, id: sandbox.id });
    expect(await findSandboxById({ id: sandbox.id })).toBeUndefined();
    expect(await t.engine.inspect(row!.containerId!)).toBeUndefined();
    await expectAppError(t.manager.getSession({ userId, id: sandbox.id }), "not_found", 404);
  });
});

describe("capacity", () => {
  let t: TestSandboxes;
  beforeAll(async () => {
    t = createTestSandboxes({ poolSize: 0, max: 1 });
    await t.manager.image();
  });
  afterAll(() => t.cleanup());

  it("refuses a sandbox beyond SANDBOX_MAX with capacity_reached, and allows one again after a removal", async () => {
    const userId = await newUserId();
    const otherUserId = await newUserId();
    const first = await t.manager.createSession({ userId });
    const [a, b] = await Promise.allSettled([t.manager.createSession({ userId }), t.manager.createSession({ userId: otherUserId })]);
    for (const outcome of [a, b]) {
      expect(outcome.status).toBe("rejected");
      const error = (outcome as PromiseRejectedResult).reason as AppError;
      expect(error.code).toBe("capacity_reached");
      expect(error.status).toBe(429);
    }
    await t.manager.deleteSession({ userId, id: first.id });
    const again = await t.manager.createSession({ userId });
    expect(again.status).toBe("ready");
  });

  it("refuses a lifetime longer than SANDBOX_TTL_MINUTES", async () => {
    await expectAppError(t.manager.createSession({ userId: await newUserId(), ttlMinutes: t.manager.config.ttlMinutes + 1 }), "invalid_input", 400);
  });
});

describe("garbage collection", () => {
  let t: TestSandboxes;
  let other: TestSandboxes;
  beforeAll(async () => {
    t = createTestSandboxes({ poolSize: 0 });
    other = createTestSandboxes({ poolSize: 0 });
    await t.manager.image();
  });
  afterAll(async () => {
    await t.cleanup();
    await other.cleanup();
  });

  it("removes expired sandboxes with their containers, and keeps live ones", async () => {
    const userId = await newUserId();
    const short = await t.manager.createSession({ userId, ttlMinutes: 5 });
    const long = await t.manager.createSession({ userId, ttlMinutes: 60 });
    const shortRow = await findSandboxById({ id: short.id });
    const longRow = await findSandboxById({ id: long.id });

    advanceClockForTests(6 * 60_000);
    const report = await collectGarbage(t.manager);
    expect(report.removed).toContain(short.id);
    expect(report.removed).not.toContain(long.id);
    expect(await findSandboxById({ id: short.id })).toBeUndefined();
    expect(await t.engine.inspect(shortRow!.containerId!)).toBeUndefined();
    expect((await t.engine.inspect(longRow!.containerId!))?.State.Running).toBe(true);
  });

  it("removes a sandbox nobody used for longer than the idle limit, even before its expiry", async () => {
    const userId = await newUserId();
    const used = await t.manager.createSession({ userId, ttlMinutes: 60 });
    const idle = await t.manager.createSession({ userId, ttlMinutes: 60 });
    advanceClockForTests((t.manager.config.idleMinutes - 1) * 60_000);
    await t.manager.getSession({ userId, id: used.id });
    advanceClockForTests(2 * 60_000);
    const report = await collectGarbage(t.manager);
    expect(report.removed).toContain(idle.id);
    expect(report.removed).not.toContain(used.id);
    expect(await findSandboxById({ id: idle.id })).toBeUndefined();
    expect(await findSandboxById({ id: used.id })).toBeDefined();
  });

  it("removes containers labelled as ours that have no record, and leaves another deployment's alone", async () => {
    const image = await t.manager.image();
    const expiresAt = new Date(Date.now() + 3600_000);
    const orphan = await t.engine.run({ sandboxId: randomUUID(), image, namespace: t.namespace, owner: "crashed", expiresAt });
    const foreign = await t.engine.run({ sandboxId: randomUUID(), image, namespace: other.namespace, owner: "someone", expiresAt });

    const report = await collectGarbage(t.manager, { now: new Date(Date.now() + 3600_000) });
    expect(report.orphans.length).toBe(1);
    expect(await t.engine.inspect(orphan.containerId)).toBeUndefined();
    expect((await t.engine.inspect(foreign.containerId))?.State.Running).toBe(true);
  });

  it("lets only one app instance collect at a time, through the lease", async () => {
    const now = new Date(Date.now() + 7200_000);
    const first = await collectGarbage(t.manager, { now });
    const second = await collectGarbage(other.manager, { now });
    expect(first.skipped).toBe(false);
    expect(second.skipped).toBe(true);
    // Once the lease has expired, another instance takes over.
    const later = new Date(now.getTime() + 3600_000);
    expect(await takeSandboxLease({ name: GC_LEASE, holder: other.manager.holder, now: later, until: new Date(later.getTime() + 1000) })).toBe(true);
  });

  it("retires warm pool members made from an older image", async () => {
    const pooled = createTestSandboxes({ poolSize: 1 });
    try {
      await pooled.manager.image();
      await pooled.manager.fillPool();
      const [member] = (await listSandboxes()).filter((row) => row.status === "pooled");
      await updateSandbox({ id: member!.id, imageTag: "localhost/sitewright-sandbox:older" });
      const report = await collectGarbage(pooled.manager, { now: new Date(Date.now() + 4 * 3600_000) });
      expect(report.removed).toContain(member!.id);
      expect(await t.engine.inspect(member!.containerId!)).toBeUndefined();
    } finally {
      await pooled.cleanup();
    }
  });
});
