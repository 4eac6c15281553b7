/**
 * Cold starts from spares (issue 39), against the real engine (Podman) and PostgreSQL: a spare's network and
 * container are made ahead, unstarted, with the network check done ahead too, so a cold start only starts and
 * provisions, and its first request loads WordPress compiled from the image's opcache file cache; a sandbox started this way is as isolated as any, and two owners' sandboxes share no process, secret
 * or data; GC leaves an instance's spares alone until their expiry and removes them after.
 */
import { randomUUID } from "node:crypto";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findSandboxById, insertUser, listNetworkChecks } from "@/lib/db/queries";
import { useTestDatabase } from "@/lib/db/testing";
import { collectGarbage } from "./gc";
import { SPARE_MAX_AGE_MS, SPARE_OWNER } from "./spares";
import { onSandboxStep, type StepRecord } from "./steps";
import { createTestSandboxes, type TestSandboxes } from "./testing";

useTestDatabase();

async function newUserId() {
  const id = `user-${randomUUID()}`;
  await insertUser({ id, email: `${id}@example.com`, name: null, passwordHash: "unused", createdAt: new Date() });
  return id;
}

/** The spares not handed out yet (a sandbox started from one keeps its container's `spare` label, and runs). */
async function spares(t: TestSandboxes) {
  return (await t.driver.list(t.namespace)).filter((found) => found.owner === SPARE_OWNER && !found.running);
}

async function containerOf(sandboxId: string) {
  const row = await findSandboxById({ id: sandboxId });
  expect(row?.containerId).toBeTruthy();
  return row!.containerId!;
}

describe("a cold start from a spare", () => {
  let t: TestSandboxes;
  const steps: StepRecord[] = [];
  let hostService: net.Server;
  let hostPort: number;
  beforeAll(async () => {
    t = createTestSandboxes({ poolSize: 0, spares: 2 });
    await t.manager.image();
    hostService = net.createServer((socket) => {
      socket.on("error", () => {});
      socket.end("hello from the host\n");
    });
    await new Promise<void>((resolve) => hostService.listen(0, "::", resolve));
    hostPort = (hostService.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    onSandboxStep(undefined);
    await new Promise((resolve) => hostService?.close(resolve));
    await t.cleanup();
  });

  it("finds its network and container made ahead, unstarted, and the network checked ahead", async () => {
    const checkedBefore = await listNetworkChecks({ namespace: t.namespace, since: new Date(0) });
    await t.manager.prepareSpares();
    const ready = await spares(t);
    expect(ready.length).toBe(2);
    // Nothing runs in a spare: no process, so nothing of anyone's yet.
    const all = (await t.driver.list(t.namespace)).filter((found) => found.owner === SPARE_OWNER);
    expect(all.every((spare) => !spare.running)).toBe(true);
    const checked = await listNetworkChecks({ namespace: t.namespace, since: new Date(0) });
    expect(checked.length).toBeGreaterThan(checkedBefore.length);
    expect(checked.every((check) => check.isolated)).toBe(true);
  }, 120_000);

  it("only starts and provisions, from WordPress compiled into the image: no network, container or network check on the request path, and no spare made beside it", async () => {
    const before = new Set((await spares(t)).map((spare) => spare.sandboxId));
    onSandboxStep((record) => steps.push(record));
    const requested = performance.now();
    const sandbox = await t.manager.createSandbox({ userId: await newUserId() });
    // The spare taken is made again (listened to as well: below, it must not run beside the start).
    await t.manager.prepareSpares();
    onSandboxStep(undefined);
    expect(sandbox).toMatchObject({ status: "ready", fromPool: false });
    // The sandbox is one of the spares: its id is the one its network and container were made with.
    expect(before.has(sandbox.id)).toBe(true);
    const onPath = steps.filter((s) => s.sandboxId === sandbox.id && s.startedAt >= requested).map((s) => s.step);
    expect(onPath).toContain("start");
    expect(onPath).toContain("first_request");
    expect(onPath).not.toContain("network");
    expect(onPath).not.toContain("create");
    // The isolation step found the ahead check and did not probe (the probe alone takes about 2 s).
    const isolation = steps.find((s) => s.sandboxId === sandbox.id && s.step === "isolation");
    expect(isolation?.ms).toBeLessThan(1_000);
    // Its first request took WordPress compiled from the image's opcache file cache: PHP compiled next to nothing
    // (the per-container salts in /data are never cached), where a cold opcache compiles hundreds of scripts.
    const first = steps.find((s) => s.sandboxId === sandbox.id && s.step === "first_request");
    expect(first?.detail, JSON.stringify(first)).toMatchObject({ fileCache: true });
    expect(first?.detail?.compiled).toBeLessThanOrEqual(2);
    expect(first?.detail?.cached).toBeGreaterThan(200);
    // Nothing else was made on the engine while it started and provisioned: the spare it took is made again after
    // (made beside it, the new spare's network and container took the engine and the cores from the owner waiting).
    const launchEnded = Math.max(
      ...steps.filter((s) => s.sandboxId === sandbox.id && s.step !== "copy").map((s) => s.startedAt + s.ms),
    );
    const refilled = steps.filter((s) => s.sandboxId !== sandbox.id && s.startedAt >= requested);
    expect(refilled.map((s) => s.step)).toEqual(expect.arrayContaining(["network", "create"]));
    for (const step of refilled) expect(step.startedAt, JSON.stringify(step)).toBeGreaterThanOrEqual(launchEnded);
    // And its WordPress answers.
    const index = await fetch(`${await t.directUrl(sandbox.id)}/wp-json/`);
    expect(index.status).toBe(200);
    expect(((await index.json()) as { namespaces: string[] }).namespaces).toContain("sitewright/v1");
  }, 120_000);

  it("is isolated as any sandbox: its own check from inside finds it so, and the host's services stay out of reach", async () => {
    const sandbox = await t.manager.createSandbox({ userId: await newUserId() });
    const handle = await containerOf(sandbox.id);
    const check = await t.manager.fleet.checkIsolation(handle);
    expect(check, JSON.stringify(check)).toMatchObject({ isolated: true });
    const target = `${check.gateway} ${hostPort}`;
    const probe = await t.engine.exec(handle, [
      "php",
      "-r",
      '$s = @fsockopen($argv[1], (int) $argv[2], $code, $message, 1); echo $s ? "open" : "closed: $message";',
      check.gateway!,
      String(hostPort),
    ]);
    expect(probe.stdout, target).toMatch(/^closed/);
  }, 120_000);

  it("shares no process, secret or data between two owners' sandboxes made from spares", async () => {
    await t.manager.prepareSpares();
    const [a, b] = await Promise.all([
      t.manager.createSandbox({ userId: await newUserId() }),
      t.manager.createSandbox({ userId: await newUserId() }),
    ]);
    const [handleA, handleB] = [await containerOf(a.id), await containerOf(b.id)];
    expect(handleA).not.toBe(handleB);
    const read = async (handle: string, file: string) => (await t.engine.exec(handle, ["cat", file])).stdout;
    // Salts and the provisioning token are made when each container starts: never the same two.
    const saltsA = await read(handleA, "/data/salts.php");
    expect(saltsA).toContain("AUTH_KEY");
    expect(saltsA).not.toBe(await read(handleB, "/data/salts.php"));
    // The provisioning token (spent, its file gone) as each entrypoint printed it at its start.
    const token = async (handle: string) =>
      /sitewright-provision-token: ([0-9a-f]{64})/.exec(await t.driver.logs(handle))?.[1];
    const [tokenA, tokenB] = [await token(handleA), await token(handleB)];
    expect(tokenA).toMatch(/^[0-9a-f]{64}$/);
    expect(tokenB).toMatch(/^[0-9a-f]{64}$/);
    expect(tokenA).not.toBe(tokenB);
    // A write in one is not in the other: each has its own database copy.
    await (await t.clientFor(a.id)).post("/wp/v2/pages", { title: "Only in A", status: "publish" });
    const inB = await (await t.clientFor(b.id)).get<unknown[]>("/wp/v2/pages", { search: "Only in A" });
    expect(inB.data).toEqual([]);
    // Two processes: each container runs its own PHP server.
    const pid1 = async (handle: string) => (await t.engine.inspect(handle))!.State.Pid;
    expect(await pid1(handleA)).not.toBe(await pid1(handleB));
  }, 180_000);

  it("leaves spares to GC only after their expiry, and closing the manager removes its own", async () => {
    await t.manager.prepareSpares();
    const ready = await spares(t);
    expect(ready.length).toBeGreaterThan(0);
    const collector = createTestSandboxes({ poolSize: 0, namespace: t.namespace });
    try {
      const now = await collectGarbage(collector.manager, { now: new Date() });
      expect(now.orphans.filter((id) => ready.some((spare) => spare.sandboxId === id))).toEqual([]);
      expect((await spares(t)).length).toBe(ready.length);
      const later = await collectGarbage(collector.manager, { now: new Date(Date.now() + SPARE_MAX_AGE_MS + 60_000) });
      expect(later.orphans).toEqual(expect.arrayContaining(ready.map((spare) => spare.sandboxId)));
      expect(await spares(t)).toEqual([]);
    } finally {
      await collector.manager.close();
    }
  }, 120_000);
});

describe("spares when the manager closes", () => {
  it("are removed with their networks", async () => {
    const t = createTestSandboxes({ poolSize: 0, spares: 1 });
    try {
      await t.manager.image();
      await t.manager.prepareSpares();
      const [spare] = await spares(t);
      expect(spare).toBeDefined();
      await t.manager.close();
      expect(await spares(t)).toEqual([]);
      const networks = await t.engine.docker.listNetworks({
        filters: { name: [`sitewright-net-${spare!.sandboxId}`] },
      });
      expect(networks).toEqual([]);
    } finally {
      await t.cleanup();
    }
  }, 120_000);
});
