/**
 * The Kubernetes driver on a real cluster (scripts/setup/kubernetes.sh; run by vitest.kubernetes.config.ts with
 * KUBECONFIG and SANDBOX_IMAGE set, never skipped): a sandbox pod starts hardened and answers /wp-json/ at its
 * endpoint, prints its provisioning token, runs commands as 10001, reaches neither its node nor another pod, ends by
 * itself at its deadline, and leaves nothing behind when removed.
 */
import { randomBytes } from "node:crypto";
import * as k8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxSpec, StartedSandbox } from "./driver";
import { createKubernetesDriver, DEFAULT_K8S_NAMESPACE } from "./kubernetes";
import { objectName } from "./kubernetes-pod";

const kubeconfig = process.env.KUBECONFIG ?? "";
const image = process.env.SANDBOX_IMAGE ?? "";
const k8sNamespace = process.env.SANDBOX_K8S_NAMESPACE || DEFAULT_K8S_NAMESPACE;
/** This run's deployment label: nothing here touches another run's or another deployment's sandboxes. */
const namespace = `k8stest-${randomBytes(4).toString("hex")}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const driver = createKubernetesDriver({ kubeconfig, k8sNamespace, leftoverAgeMs: 0 });
const kc = new k8s.KubeConfig();
let core: k8s.CoreV1Api;
let networking: k8s.NetworkingV1Api;
const made = new Set<string>();

function sandbox(overrides: Partial<SandboxSpec> = {}): SandboxSpec {
  return {
    sandboxId: `t${randomBytes(6).toString("hex")}`,
    image,
    namespace,
    owner: "pool",
    expiresAt: new Date(Date.now() + 10 * 60_000),
    ...overrides,
  };
}

async function start(spec: SandboxSpec): Promise<StartedSandbox> {
  made.add(objectName(spec.sandboxId));
  return driver.start(spec);
}

/** Polls until `check` answers something other than undefined, or fails after `ms`. */
async function until<T>(what: string, ms: number, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} within ${ms} ms`);
    await sleep(250);
  }
}

async function wpJson(endpoint: string): Promise<number | undefined> {
  try {
    const response = await fetch(`${endpoint}/wp-json/`, { signal: AbortSignal.timeout(5_000) });
    await response.body?.cancel();
    return response.status === 200 ? 200 : undefined;
  } catch {
    return undefined;
  }
}

const readPod = (name: string) =>
  core.readNamespacedPod({ name, namespace: k8sNamespace }).catch((error: { code?: number }) => {
    if (error.code === 404) return undefined;
    throw error;
  });
/** Read by a list, as the app's rights allow (list, not get, on policies: deploy/kubernetes/sandbox-rbac.yaml). */
const readPolicy = async (name: string) =>
  (await networking.listNamespacedNetworkPolicy({ namespace: k8sNamespace, fieldSelector: `metadata.name=${name}` }))
    .items[0];

/** A TCP connect from inside the sandbox, 3 s at most: "open", or "closed <errno> <why>". */
const CONNECT = `$s = @stream_socket_client("tcp://" . $argv[1], $code, $message, 3); echo $s ? "open" : "closed $code $message";`;

beforeAll(() => {
  expect(kubeconfig, "KUBECONFIG names the test cluster's kubeconfig").not.toBe("");
  expect(image, "SANDBOX_IMAGE names the image imported into the cluster").not.toBe("");
  kc.loadFromFile(kubeconfig);
  core = kc.makeApiClient(k8s.CoreV1Api);
  networking = kc.makeApiClient(k8s.NetworkingV1Api);
});

afterAll(async () => {
  for (const name of made) await driver.remove(name).catch(() => {});
});

describe("the Kubernetes driver on a real cluster", () => {
  let a: StartedSandbox;
  let b: StartedSandbox;
  const specA = sandbox({ owner: "user-1" });

  it("starts a sandbox pod that answers /wp-json/ at its endpoint and prints its provisioning token", async () => {
    await driver.ping();
    expect(await driver.nodeHasImage(image)).toBe(true);
    expect(await driver.nodeHasImage("localhost/sitewright-no-such-image:none")).toBe(false);
    const started = Date.now();
    a = await start(specA);
    const running = Date.now() - started;
    expect(a.handle).toBe(objectName(specA.sandboxId));
    expect(a.endpoint).toMatch(/^http:\/\/\d+\.\d+\.\d+\.\d+:8080$/);
    expect(a.node).not.toBe("");
    await until("/wp-json/ answered", 30_000, () => wpJson(a.endpoint));
    console.log(`pod create → running ${running} ms, → /wp-json/ ${Date.now() - started} ms`);
    const token = await until("the token was printed", 15_000, async () =>
      /sitewright-provision-token: [0-9a-f]{64}/.test(await driver.logs(a.handle)) ? true : undefined,
    );
    expect(token).toBe(true);
  });

  it("runs commands as 10001 with no privileges, and reports their exit codes and output", async () => {
    expect(await driver.exec(a.handle, ["id", "-u"])).toEqual({ exitCode: 0, stdout: "10001\n", stderr: "" });
    expect(await driver.exec(a.handle, ["sh", "-c", "echo out; echo err >&2; exit 3"])).toEqual({
      exitCode: 3,
      stdout: "out\n",
      stderr: "err\n",
    });
    const status = (await driver.exec(a.handle, ["cat", "/proc/self/status"])).stdout;
    expect(status).toMatch(/^NoNewPrivs:\s+1$/m);
    expect(status).toMatch(/^CapEff:\s+0+$/m);
    const missing = await driver.exec(a.handle, ["/no/such/command"]);
    expect(missing.exitCode).not.toBe(0);
    await expect(driver.exec(a.handle, ["sleep", "10"], { timeoutMs: 1_000 })).rejects.toThrow(/timed out/);
    const readOnly = await driver.exec(a.handle, ["sh", "-c", "touch /usr/x"]);
    expect(readOnly.exitCode).not.toBe(0);
  });

  it("reads back the pod's hardening and its own policy from the cluster", async () => {
    const pod = (await readPod(a.handle))!;
    const container = pod.spec!.containers[0]!;
    expect(pod.spec).toMatchObject({
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      restartPolicy: "Never",
      dnsPolicy: "None",
      securityContext: { runAsNonRoot: true, runAsUser: 10001, seccompProfile: { type: "RuntimeDefault" } },
    });
    expect(pod.spec!.hostNetwork ?? false).toBe(false);
    expect(pod.spec!.activeDeadlineSeconds).toBeGreaterThan(9 * 60);
    expect(container.securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      privileged: false,
      capabilities: { drop: ["ALL"] },
    });
    expect(container.resources).toEqual({
      requests: { cpu: "100m", memory: "96Mi" },
      limits: { cpu: "1", memory: "256Mi" },
    });
    const policy = (await readPolicy(a.handle))!;
    expect(policy.spec?.policyTypes).toEqual(["Ingress", "Egress"]);
    expect(policy.spec?.egress ?? []).toEqual([]);
    expect((await readPolicy("sitewright-sandboxes-deny"))?.spec?.policyTypes).toEqual(["Ingress", "Egress"]);
  });

  it("lists its sandboxes by label, with what they were started for", async () => {
    const listed = await driver.list(namespace);
    expect(listed).toEqual([
      expect.objectContaining({
        handle: a.handle,
        sandboxId: specA.sandboxId,
        namespace,
        owner: "user-1",
        expiresAt: specA.expiresAt,
        running: true,
      }),
    ]);
    expect((await driver.list()).some((s) => s.handle === a.handle)).toBe(true);
    expect(await driver.list(`${namespace}-other`)).toEqual([]);
    expect(await driver.isRunning(a.handle)).toBe(true);
  });

  it("keeps a sandbox from reaching its node (the app's port, PostgreSQL's) or another sandbox", async () => {
    b = await start(sandbox());
    await until("the second sandbox answered", 30_000, () => wpJson(b.endpoint));
    const target = await driver.isolationTarget(a.handle);
    expect(target.gateway).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(target.node).toBe(a.node);
    const other = new URL(b.endpoint).host;
    const addresses = [`${target.gateway}:5432`, `${target.gateway}:3000`, `${target.gateway}:9`, other];
    const outcomes = await Promise.all(
      addresses.map(
        async (address) => `${address} ${(await driver.exec(a.handle, ["php", "-r", CONNECT, address])).stdout}`,
      ),
    );
    // A timeout is the DROP; "refused" or "open" would mean the packet arrived.
    expect(outcomes).toEqual(
      addresses.map((address) => expect.stringMatching(new RegExp(`^${address} closed (110|0) .*timed out`, "i"))),
    );
  });

  it("removes a sandbox's pod and policy, and a second removal is no error", async () => {
    await driver.remove(b.handle);
    expect(await readPod(b.handle)).toBeUndefined();
    expect(await readPolicy(b.handle)).toBeUndefined();
    expect(await driver.isRunning(b.handle)).toBe(false);
    await driver.remove(b.handle);
  });

  it("prunes a policy whose pod is gone, and keeps a live sandbox's", async () => {
    await core.deleteNamespacedPod({ name: a.handle, namespace: k8sNamespace, gracePeriodSeconds: 0 });
    const kept = sandbox();
    const live = await start(kept);
    const pruned = await driver.pruneLeftovers(namespace, new Set([kept.sandboxId]));
    expect(pruned).toEqual([a.handle]);
    expect(await readPolicy(a.handle)).toBeUndefined();
    expect(await readPolicy(live.handle)).toBeDefined();
    await driver.remove(live.handle);
  });
});

/** Polls until the cluster has ended the pod for its deadline. */
async function endedByDeadline(handle: string): Promise<void> {
  const pod = await until(`${handle} ended`, 90_000, async () => {
    const read = await readPod(handle);
    return read?.status?.phase === "Failed" ? read : undefined;
  });
  expect(pod.status?.reason).toBe("DeadlineExceeded");
  expect(await driver.isRunning(handle)).toBe(false);
}

describe("a sandbox's deadline", () => {
  it("ends the pod by the cluster alone at its expiry, with no app running", async () => {
    const short = await start(sandbox({ expiresAt: new Date(Date.now() + 20_000) }));
    expect(await driver.isRunning(short.handle)).toBe(true);
    await endedByDeadline(short.handle);
    expect((await driver.list(namespace)).find((s) => s.handle === short.handle)?.running).toBe(false);
    await driver.remove(short.handle);
  });

  it("is lowered to a pool member's new expiry, and never raised", async () => {
    const lowered = await start(sandbox());
    expect(await driver.setExpiry(lowered.handle, new Date(Date.now() + 15_000))).toBe(true);
    const deadline = (await readPod(lowered.handle))?.spec?.activeDeadlineSeconds;
    expect(deadline).toBeLessThanOrEqual(20);
    expect(await driver.setExpiry(lowered.handle, new Date(Date.now() + 3_600_000))).toBe(true);
    expect((await readPod(lowered.handle))?.spec?.activeDeadlineSeconds).toBe(deadline);
    await endedByDeadline(lowered.handle);
    await driver.remove(lowered.handle);
    expect(await driver.setExpiry(lowered.handle, new Date())).toBe(false);
  });
});

describe("a pod that cannot run", () => {
  it("is removed with its policy, and the start says why", async () => {
    const spec = sandbox({ image: "localhost/sitewright-no-such-image:none" });
    await expect(start(spec)).rejects.toThrow(/ImagePullBackOff|ErrImagePull/);
    expect(await readPod(objectName(spec.sandboxId))).toBeUndefined();
    expect(await readPolicy(objectName(spec.sandboxId))).toBeUndefined();
  });
});
