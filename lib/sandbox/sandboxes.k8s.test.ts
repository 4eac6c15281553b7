/**
 * The sandbox manager on a real cluster (SANDBOX_DRIVER=kubernetes, set by vitest.kubernetes.config.ts with the test
 * cluster's KUBECONFIG and SANDBOX_IMAGE; never skipped), with real PostgreSQL and the real test WordPress as the
 * live site: a sandbox pod started and provisioned through the manager, a change rehearsed in a pod, previewed
 * through Sitewright and applied to the live site, two app instances sharing one pool, a pod ended by its deadline
 * with every manager closed, a pod that reaches neither its node's services nor another pod, and GC of orphans.
 */
import { randomUUID } from "node:crypto";
import os from "node:os";
import * as k8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as previewRoute } from "@/app/preview/[sandboxId]/[[...path]]/route";
import { POST as applyRoute } from "@/app/sites/[id]/changes/[changeSetId]/apply/route";
import { operationsByName } from "@/lib/agent/operations";
import { writeThroughAgent } from "@/test/changes";
import {
  findSandboxById,
  findSiteForUser,
  insertConversation,
  listNetworkChecks,
  listSandboxes,
  updateSandbox,
} from "@/lib/db/queries";
import { useTestDatabase } from "@/lib/db/testing";
import { siteClientFor } from "@/lib/sites/sites";
import type { SiteClient } from "@/lib/sites/types";
import { newUser } from "@/test/accounts";
import { type AgentTestSite, pairAgentSite, startAgentSite } from "@/test/agent-site";
import { call } from "@/test/http";
import { type SandboxConfig, sandboxConfig } from "./config";
import type { SandboxDriver } from "./driver";
import { createDriver } from "./drivers";
import { collectGarbage } from "./gc";
import { setSandboxManagerForTests } from "./index";
import { createKubernetesDriver } from "./kubernetes";
import { objectName } from "./kubernetes-pod";
import { createTestSandboxes, type TestSandboxes } from "./testing";

useTestDatabase();

const APP = "http://localhost:3000";
const POD_ENDPOINT = /^http:\/\/10\.244\.7\.\d+:8080$/;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const kc = new k8s.KubeConfig();
let core: k8s.CoreV1Api;
let networking: k8s.NetworkingV1Api;
let k8sNamespace: string;

beforeAll(() => {
  expect(process.env.SANDBOX_DRIVER, "run by vitest.kubernetes.config.ts").toBe("kubernetes");
  expect(process.env.KUBECONFIG, "KUBECONFIG names the test cluster's kubeconfig").toBeTruthy();
  expect(process.env.SANDBOX_IMAGE, "SANDBOX_IMAGE names the image imported into the cluster").toBeTruthy();
  kc.loadFromFile(process.env.KUBECONFIG!);
  core = kc.makeApiClient(k8s.CoreV1Api);
  networking = kc.makeApiClient(k8s.NetworkingV1Api);
});

const notFound = (error: { code?: number }) => {
  if (error.code === 404) return undefined;
  throw error;
};
const readPod = (name: string) => core.readNamespacedPod({ name, namespace: k8sNamespace }).catch(notFound);
/** Read by a list, as the app's rights allow (list, not get, on policies: deploy/kubernetes/sandbox-rbac.yaml). */
const readPolicy = async (name: string) =>
  (await networking.listNamespacedNetworkPolicy({ namespace: k8sNamespace, fieldSelector: `metadata.name=${name}` }))
    .items[0];

/** Polls until `check` answers something other than undefined, or fails after `ms`. */
async function until<T>(what: string, ms: number, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} within ${ms} ms`);
    await sleep(500);
  }
}

/** The test sandboxes of this file, on the kubernetes driver createTestSandboxes builds from the configuration. */
function sandboxes(...args: Parameters<typeof createTestSandboxes>): TestSandboxes {
  const t = createTestSandboxes(...args);
  expect(t.driver.name).toBe("kubernetes");
  k8sNamespace = t.config.kubernetes.namespace;
  return t;
}

async function rowOf(id: string) {
  const row = await findSandboxById({ id });
  if (!row) throw new Error(`no sandbox ${id}`);
  return row;
}

/** A TCP connect from inside the sandbox, 3 s at most: "open", or "closed <errno> <why>". */
const CONNECT = `$s = @stream_socket_client("tcp://" . $argv[1], $code, $message, 3); echo $s ? "open" : "closed $code $message";`;

describe("a sandbox pod through the manager", () => {
  let t: TestSandboxes;
  let userId: string;
  let first: { id: string };
  beforeAll(async () => {
    t = sandboxes({ poolSize: 0, appUrl: APP });
    await t.manager.image();
    userId = (await newUser("k8s-sandbox")).id;
  });
  afterAll(() => t?.cleanup());

  it("starts a pod, provisions the plugin over its endpoint, and the signed client reads the site through it", async () => {
    const started = Date.now();
    first = await t.manager.createSandbox({ userId, ttlMinutes: 30 });
    console.log(`manager createSandbox (cold pod, provisioned, network checked): ${Date.now() - started} ms`);
    const row = await rowOf(first.id);
    expect(row).toMatchObject({ status: "ready", driver: "kubernetes", node: "localhost" });
    expect(row.endpoint).toMatch(POD_ENDPOINT);
    expect(row.containerId).toBe(objectName(first.id));
    const pod = (await readPod(row.containerId!))!;
    expect(pod.status?.phase).toBe("Running");
    expect(`http://${pod.status?.podIP}:8080`).toBe(row.endpoint);
    const client = await t.clientFor(first.id);
    const info = await client.get<{ wordpress: string }>("/sitewright/v1/info");
    expect(info.data.wordpress).toMatch(/^\d+\.\d+/);
    const made = await client.post<{ id: number }>("/wp/v2/pages", { title: "Made in a pod", status: "publish" });
    expect(made.status).toBe(201);
    const read = await client.get<{ title: { rendered: string } }>(`/wp/v2/pages/${made.data.id}`);
    expect(read.data.title.rendered).toBe("Made in a pod");
  });

  it("checks the node's isolation once, records it per node, and the pod reaches neither the node nor a pod", async () => {
    expect(await t.manager.networkState()).toBe("isolated");
    const checks = await listNetworkChecks({ namespace: t.namespace, since: new Date(0) });
    expect(checks).toEqual([expect.objectContaining({ driver: "kubernetes", node: "localhost", isolated: true })]);

    const second = await t.manager.createSandbox({ userId, ttlMinutes: 30 });
    const [one, other] = [await rowOf(first.id), await rowOf(second.id)];
    expect(other.endpoint).toMatch(POD_ENDPOINT);
    expect(other.endpoint).not.toBe(one.endpoint);
    // Still one check: the node was known isolated.
    expect(await listNetworkChecks({ namespace: t.namespace, since: new Date(0) })).toHaveLength(1);
    // The control: this process reaches the other pod's WordPress at its endpoint.
    expect((await fetch(`${other.endpoint}/wp-json/`)).status).toBe(200);

    const { gateway } = await t.driver.isolationTarget(one.containerId!);
    expect(gateway).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    const hostAddresses = Object.values(os.networkInterfaces())
      .flat()
      .filter((a) => a && a.family === "IPv4" && !a.internal && a.address !== gateway)
      .map((a) => a!.address)
      .slice(0, 3);
    const addresses = [
      `${gateway}:3000`,
      `${gateway}:5432`,
      ...hostAddresses.flatMap((a) => [`${a}:3000`, `${a}:5432`]),
      new URL(other.endpoint!).host,
    ];
    const outcomes = await Promise.all(
      addresses.map(async (address) => {
        const result = await t.driver.exec(one.containerId!, ["php", "-r", CONNECT, address]);
        return `${address} ${result.stdout}`;
      }),
    );
    // A timeout is the DROP; "refused" or "open" would mean the packet arrived.
    expect(outcomes).toEqual(
      addresses.map((address) => expect.stringMatching(new RegExp(`^${address} closed (110|0) .*timed out`, "i"))),
    );
  });

  it("lets the cluster end a sandbox at its deadline with every manager closed: no app code running", async () => {
    const short = await t.manager.createSandbox({ userId, ttlMinutes: 30 });
    // Its user's lifetime, brought down to 15 s through the manager as a claimed pool member's is.
    await updateSandbox({ id: short.id, expiresAt: new Date(Date.now() + 15_000) });
    expect(await t.manager.fleet.setExpiry(await rowOf(short.id))).toBe(true);
    const handle = (await rowOf(short.id)).containerId!;
    expect((await readPod(handle))?.spec?.activeDeadlineSeconds).toBeLessThanOrEqual(20);
    await t.manager.close();
    const ended = await until(`${handle} ended`, 90_000, async () => {
      const pod = await readPod(handle);
      return pod?.status?.phase === "Failed" ? pod : undefined;
    });
    expect(ended.status?.reason).toBe("DeadlineExceeded");
    expect(await t.driver.isRunning(handle)).toBe(false);
  });
});

describe("a change rehearsed in a sandbox pod", () => {
  let wp: AgentTestSite;
  let t: TestSandboxes;
  let owner: { cookie: string; id: string };
  let siteId: string;
  let live: SiteClient;
  beforeAll(async () => {
    wp = await startAgentSite();
    owner = await newUser("k8s-rehearsal");
    siteId = await pairAgentSite(wp, owner.id);
    live = siteClientFor((await findSiteForUser({ userId: owner.id, siteId }))!);
    t = sandboxes(
      { poolSize: 0, appUrl: APP },
      { siteSource: async () => ({ client: live, site: { id: siteId, url: wp.local.url } }) },
    );
    await t.manager.image();
    await setSandboxManagerForTests(t.manager);
  }, 180_000);
  afterAll(async () => {
    await setSandboxManagerForTests(undefined);
    await t?.cleanup();
    await wp?.local.stop();
  });

  const para = (text: string) => `<!-- wp:paragraph --><p>${text}</p><!-- /wp:paragraph -->`;
  const liveContent = async (id: number) =>
    (await wp.admin.get<{ content: { raw: string } }>(`/wp/v2/pages/${id}`, { context: "edit" })).data.content.raw;

  it("copies the site into a pod, shows the change in the preview through Sitewright, and Apply makes it live", async () => {
    const { data: page } = await wp.admin.post<{ id: number }>("/wp/v2/pages", {
      title: "Opening hours",
      content: para("Open 8–18"),
      status: "publish",
    });
    const conversationId = randomUUID();
    await insertConversation({ id: conversationId, userId: owner.id, siteId, title: "hours", now: new Date() });
    const rehearsal = await t.manager.rehearsal({ userId: owner.id, siteId, conversationId, live });
    const sandboxRow = await rowOf(rehearsal.sandbox.id);
    expect(sandboxRow).toMatchObject({ driver: "kubernetes", node: "localhost" });
    expect(sandboxRow.endpoint).toMatch(POD_ENDPOINT);
    const copy = rehearsal.manifest.items.find((item) => item.liveRef === `post:${page.id}`)!;
    expect(copy).toBeDefined();
    const written = await writeThroughAgent(
      {
        scope: {
          userId: owner.id,
          siteId,
          conversationId,
          turnId: randomUUID(),
          target: "sandbox" as const,
          sandboxId: rehearsal.sandbox.id,
        },
        client: rehearsal.client,
      },
      operationsByName.get("update_page")!,
      { id: Number(copy.sandboxId), content: para("Open 7–19, also on Sundays") },
    );
    const changeSetId = (written.data as { changeSetId: string }).changeSetId;
    expect(await liveContent(page.id)).toBe(para("Open 8–18"));

    const sandboxId = rehearsal.sandbox.id;
    const shown = await call(previewRoute, {
      path: `/preview/${sandboxId}/opening-hours/`,
      cookie: owner.cookie,
      params: { sandboxId, path: ["opening-hours"] },
    });
    expect(shown.status).toBe(200);
    expect(shown.text).toContain("Open 7–19, also on Sundays");
    expect(shown.text).toContain(`${APP}/preview/${sandboxId}/`);
    const podHost = new URL(sandboxRow.endpoint!).host;
    expect(shown.text).not.toContain(podHost);
    expect(shown.text).not.toContain(encodeURIComponent(podHost));
    expect(shown.text).not.toMatch(/10\.244\.\d+\.\d+/);
    expect(JSON.stringify([...shown.headers])).not.toContain(podHost);

    const applied = await call(applyRoute, {
      body: {},
      cookie: owner.cookie,
      headers: { origin: APP },
      params: { id: siteId, changeSetId },
    });
    expect(applied.status).toBe(200);
    expect(applied.json.changeSet).toMatchObject({ target: "live", status: "applied" });
    expect(await liveContent(page.id)).toBe(para("Open 7–19, also on Sundays"));
  });
});

/** The kubernetes driver from the configuration, counting the sandboxes it starts. */
function countingDriver(config: SandboxConfig): { driver: SandboxDriver; started: string[] } {
  const inner = createDriver(config);
  const started: string[] = [];
  const driver: SandboxDriver = {
    ...inner,
    name: inner.name,
    start: async (spec) => {
      started.push(spec.sandboxId);
      return inner.start(spec);
    },
  };
  return { driver, started };
}

describe("two app instances on one database", () => {
  const namespace = `k8s-shared-${randomUUID().slice(0, 8)}`;
  let a: TestSandboxes;
  let b: TestSandboxes;
  let aStarted: string[];
  let bStarted: string[];
  beforeAll(async () => {
    const config = sandboxConfig({ enabled: true, namespace });
    const first = countingDriver(config);
    const second = countingDriver(config);
    aStarted = first.started;
    bStarted = second.started;
    a = sandboxes({ poolSize: 2, namespace }, { driver: first.driver });
    b = sandboxes({ poolSize: 2, namespace }, { driver: second.driver });
    await a.manager.image();
    for (const row of await listSandboxes()) {
      if (row.status === "pooled" || row.status === "warming") await a.manager.fleet.destroy(row);
    }
  });
  afterAll(async () => {
    await a?.cleanup();
    await b?.cleanup();
  });

  it("share one pool: both fill it, two pods exist, and the second hands out a pod the first started", async () => {
    const started = Date.now();
    await Promise.all([a.manager.fillPool(), b.manager.fillPool()]);
    console.log(`two managers fill a pool of 2 pods: ${Date.now() - started} ms`);
    const pooled = (await listSandboxes()).filter((row) => row.status === "pooled");
    expect(pooled).toHaveLength(2);
    for (const row of pooled) {
      expect(row).toMatchObject({ driver: "kubernetes", node: "localhost" });
      expect(row.endpoint).toMatch(POD_ENDPOINT);
    }
    const pods = await a.driver.list(namespace);
    expect(pods.map((p) => p.sandboxId).sort()).toEqual(pooled.map((r) => r.id).sort());
    expect([aStarted.length, bStarted.length].sort()).toEqual([0, 2]);
    const [filler, other] = aStarted.length === 2 ? [a, b] : [b, a];
    const fillerStarted = filler === a ? aStarted : bStarted;

    const userId = (await newUser("k8s-pool")).id;
    const acquireStarted = Date.now();
    const sandbox = await other.manager.createSandbox({ userId, ttlMinutes: 5 });
    console.log(`pool acquire on the other instance: ${Date.now() - acquireStarted} ms`);
    expect(sandbox.fromPool).toBe(true);
    expect(fillerStarted).toContain(sandbox.id);
    const row = await rowOf(sandbox.id);
    // The pod's own end becomes the user's expiry (5 minutes from the claim), well before the pool member's was:
    // set right after the answer, off the acquire's path (lib/sandbox/sandboxes.ts, setExpirySoon).
    const podDeadline = async () => {
      const pod = (await readPod(row.containerId!))!;
      return new Date(pod.status!.startTime!).getTime() + pod.spec!.activeDeadlineSeconds! * 1000;
    };
    await expect
      .poll(async () => Math.abs((await podDeadline()) - row.expiresAt.getTime()), { timeout: 15_000 })
      .toBeLessThan(5_000);
    const deadlineAt = await podDeadline();
    const poolExpiry = pods.find((p) => p.sandboxId === sandbox.id)!.expiresAt!;
    expect(deadlineAt).toBeLessThan(poolExpiry.getTime() - 10 * 60_000);
    const client = await other.clientFor(sandbox.id);
    expect((await client.get<{ wordpress: string }>("/sitewright/v1/info")).status).toBe(200);
    await other.manager.close();
    await filler.manager.close();
  });
});

describe("garbage collection of orphans", () => {
  let t: TestSandboxes;
  const made: string[] = [];
  beforeAll(async () => {
    const config = sandboxConfig({ enabled: true });
    const driver = createKubernetesDriver({
      kubeconfig: config.kubernetes.kubeconfig,
      k8sNamespace: config.kubernetes.namespace,
      k8sRuntimeClass: config.kubernetes.runtimeClass,
      // Leftover policies are pruned once older than this; a minute in production, none here.
      leftoverAgeMs: 0,
    });
    t = sandboxes({ poolSize: 0 }, { driver });
  });
  afterAll(async () => {
    for (const handle of made) await t.driver.remove(handle).catch(() => {});
    await t?.cleanup();
  });

  it("removes a pod labelled as this deployment's with no row, and prunes a policy whose pod is gone", async () => {
    const image = await t.manager.image();
    const spec = (sandboxId: string) => ({
      sandboxId,
      image,
      namespace: t.namespace,
      owner: "pool",
      expiresAt: new Date(Date.now() + 10 * 60_000),
    });
    const orphanId = randomUUID();
    const orphan = await t.driver.start(spec(orphanId));
    made.push(orphan.handle);
    const podless = await t.driver.start(spec(randomUUID()));
    made.push(podless.handle);
    await core.deleteNamespacedPod({ name: podless.handle, namespace: k8sNamespace, gracePeriodSeconds: 0 });
    await until("the pod was gone", 30_000, async () => ((await readPod(podless.handle)) ? undefined : true));
    expect(await readPolicy(podless.handle)).toBeDefined();

    const report = await collectGarbage(t.manager);
    expect(report.orphans).toEqual([orphanId]);
    expect(report.networksRemoved).toContain(podless.handle);
    expect(await readPod(orphan.handle)).toBeUndefined();
    expect(await readPolicy(orphan.handle)).toBeUndefined();
    expect(await readPolicy(podless.handle)).toBeUndefined();
  });
});
