/**
 * Sandboxes on Kubernetes beside Podman (issue 26), through the SandboxManager, one driver per run:
 *   - cold start: createSandbox with no pool, request to provisioned (a working /wp-json), p50 and p90,
 *   - pool acquire: createSandbox from a full warm pool, p50,
 *   - sandboxes held per GiB: K pooled sandboxes, settled, each one's memory in use (the cgroup's usage less its
 *     inactive page cache: the engine's stats for Podman, the pod's cgroup under the kubelet's root for Kubernetes),
 *     and what a scheduler holds for one (Kubernetes: the pod's memory request and limit; Podman: the limit only).
 * The kubernetes run needs KUBECONFIG and SANDBOX_IMAGE (the image imported into the cluster); without them it is
 * reported as not measured and the docker run goes on. The pod cgroup is read from this machine's /sys/fs/cgroup, so
 * the cluster must be a node on this machine (scripts/setup/kubernetes.sh's).
 * Run alone: `node --import tsx bench/kubernetes.ts`.
 */
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import * as k8s from "@kubernetes/client-node";
import { setDatabaseForTests } from "@/lib/db";
import { countSandboxes, insertUser } from "@/lib/db/queries";
import { createTestDatabase } from "@/lib/db/testing";
import { SANDBOX_LIMITS } from "@/lib/sandbox/engine";
import { DEFAULT_K8S_NAMESPACE } from "@/lib/sandbox/kubernetes";
import { POD_RESOURCES } from "@/lib/sandbox/kubernetes-pod";
import { createTestSandboxes, type TestSandboxes } from "@/lib/sandbox/testing";
import { kubernetesAbsent } from "./lib/kubernetes-env";
import { percentile, round } from "./lib/stats";
import { sized } from "./lib/smoke";

const COLD_STARTS = sized(5);
const ACQUIRES = sized(10);
const HELD = sized(4);
const SETTLE_MS = sized(5_000, 500);
const MIB = 2 ** 20;

type DriverName = "docker" | "kubernetes";
type Measured = {
  coldP50: number;
  coldP90: number;
  acquireP50: number;
  /** Mean memory in use per settled sandbox, MiB. */
  usedMiB: number;
  /** What a scheduler reserves for one (Kubernetes: the pod's memory request; Podman reserves nothing), MiB. */
  reservedMiB: number | undefined;
  limitMiB: number;
};

const log = (line: string) => process.stderr.write(`bench kubernetes: ${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitForPool(size: number, timeoutMs = 180_000) {
  const deadline = Date.now() + timeoutMs;
  while ((await countSandboxes({ statuses: ["pooled"] })) < size) {
    if (Date.now() > deadline) throw new Error("the pool did not fill in time");
    await sleep(50);
  }
}

/** In use = usage less inactive page cache (what the kubelet calls the working set). */
const inUse = (usage: number, inactiveFile: number) => (usage - inactiveFile) / MIB;

async function dockerMemoryMiB(t: TestSandboxes): Promise<number[]> {
  const samples: number[] = [];
  for (const container of await t.engine.list(t.namespace)) {
    const stats = (await t.engine.docker.getContainer(container.containerId).stats({ stream: false })) as {
      memory_stats?: { usage?: number; stats?: Record<string, number> };
    };
    const usage = stats.memory_stats?.usage ?? 0;
    const inner = stats.memory_stats?.stats ?? {};
    if (usage > 0) samples.push(inUse(usage, inner.total_inactive_file ?? inner.inactive_file ?? 0));
  }
  return samples;
}

/** The pod's cgroup directory under the kubelet's root (cgroupfs or systemd driver, cgroup v1 or v2). */
function podCgroup(uid: string): { dir: string; v2: boolean } {
  const slice = uid.replaceAll("-", "_");
  for (const [root, v2] of [
    ["/sys/fs/cgroup/memory", false],
    ["/sys/fs/cgroup", true],
  ] as const) {
    for (const qos of ["", "burstable", "besteffort"]) {
      const cgroupfs = path.join(root, "kubepods", qos, `pod${uid}`);
      if (existsSync(cgroupfs)) return { dir: cgroupfs, v2 };
      const parent = qos ? `kubepods.slice/kubepods-${qos}.slice` : "kubepods.slice";
      const systemd = path.join(root, parent, `kubepods${qos ? `-${qos}` : ""}-pod${slice}.slice`);
      if (existsSync(systemd)) return { dir: systemd, v2 };
    }
  }
  throw new Error(`no cgroup for pod ${uid} on this machine (is the node here?)`);
}

function cgroupInUseMiB(uid: string): number {
  const { dir, v2 } = podCgroup(uid);
  const stat = Object.fromEntries(
    readFileSync(path.join(dir, "memory.stat"), "utf8")
      .trim()
      .split("\n")
      .map((line) => [line.split(" ")[0], Number(line.split(" ")[1])]),
  ) as Record<string, number>;
  const usage = Number(readFileSync(path.join(dir, v2 ? "memory.current" : "memory.usage_in_bytes"), "utf8"));
  return inUse(usage, v2 ? (stat.inactive_file ?? 0) : (stat.total_inactive_file ?? 0));
}

async function kubernetesMemoryMiB(t: TestSandboxes): Promise<number[]> {
  const config = new k8s.KubeConfig();
  config.loadFromFile(process.env.KUBECONFIG!);
  const core = config.makeApiClient(k8s.CoreV1Api);
  const namespace = t.config.kubernetes.namespace || DEFAULT_K8S_NAMESPACE;
  const samples: number[] = [];
  for (const sandbox of await t.driver.list(t.namespace)) {
    const pod = await core.readNamespacedPod({ name: sandbox.handle, namespace });
    samples.push(cgroupInUseMiB(pod.metadata!.uid!));
  }
  return samples;
}

const mebibytes = (quantity: string) => {
  const match = /^(\d+)(Mi|Gi)$/.exec(quantity);
  if (!match) throw new Error(`unexpected quantity ${quantity}`);
  return Number(match[1]) * (match[2] === "Gi" ? 1024 : 1);
};

async function coldStarts(t: TestSandboxes, userId: string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < COLD_STARTS; i++) {
    const started = performance.now();
    const sandbox = await t.manager.createSandbox({ userId });
    times.push(performance.now() - started);
    await t.manager.deleteSandbox({ userId, id: sandbox.id });
  }
  return times;
}

async function acquires(t: TestSandboxes, userId: string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < ACQUIRES; i++) {
    await waitForPool(HELD);
    const started = performance.now();
    const sandbox = await t.manager.createSandbox({ userId });
    times.push(performance.now() - started);
    if (!sandbox.fromPool) throw new Error("expected a pooled sandbox");
    await t.manager.deleteSandbox({ userId, id: sandbox.id });
  }
  return times;
}

async function measure(driver: DriverName, userId: string): Promise<Measured> {
  const max = COLD_STARTS + ACQUIRES + HELD + 5;
  const cold = createTestSandboxes({ driver, poolSize: 0, max });
  const pool = createTestSandboxes({ driver, poolSize: HELD, max });
  try {
    await cold.manager.image();
    await pool.manager.image();
    log(`${driver}: ${COLD_STARTS} cold starts`);
    const coldTimes = await coldStarts(cold, userId);
    log(`${driver}: filling a pool of ${HELD}, settling ${SETTLE_MS / 1000} s`);
    await pool.manager.fillPool();
    await waitForPool(HELD);
    await sleep(SETTLE_MS);
    const memory = driver === "kubernetes" ? await kubernetesMemoryMiB(pool) : await dockerMemoryMiB(pool);
    if (memory.length < HELD) throw new Error(`read the memory of ${memory.length} of ${HELD} sandboxes`);
    log(`${driver}: ${memory.map((m) => m.toFixed(1)).join(", ")} MiB; ${ACQUIRES} acquires`);
    const acquireTimes = await acquires(pool, userId);
    const limitMiB =
      driver === "kubernetes" ? mebibytes(POD_RESOURCES.limits.memory) : SANDBOX_LIMITS.memoryBytes / MIB;
    return {
      coldP50: percentile(coldTimes, 50),
      coldP90: percentile(coldTimes, 90),
      acquireP50: percentile(acquireTimes, 50),
      usedMiB: memory.reduce((a, b) => a + b, 0) / memory.length,
      reservedMiB: driver === "kubernetes" ? mebibytes(POD_RESOURCES.requests.memory) : undefined,
      limitMiB,
    };
  } finally {
    await pool.cleanup();
    await cold.cleanup();
  }
}

function figuresOf(prefix: string, m: Measured): Record<string, number> {
  return {
    [`${prefix}_cold_start_p50_ms`]: round(m.coldP50, 0),
    [`${prefix}_cold_start_p90_ms`]: round(m.coldP90, 0),
    [`${prefix}_acquire_p50_ms`]: round(m.acquireP50, 1),
    [`${prefix}_memory_in_use_mb`]: round(m.usedMiB, 1),
    [`${prefix}_per_gib_by_use`]: round(1024 / m.usedMiB, 1),
    ...(m.reservedMiB && { [`${prefix}_per_gib_by_request`]: round(1024 / m.reservedMiB, 1) }),
    [`${prefix}_per_gib_by_limit`]: round(1024 / m.limitMiB, 1),
  };
}

export async function benchKubernetes(): Promise<Record<string, number>> {
  const absent = kubernetesAbsent();
  const db = await createTestDatabase();
  await setDatabaseForTests(db.handle);
  try {
    const userId = `bench-${randomUUID()}`;
    await insertUser({
      id: userId,
      email: `${userId}@example.com`,
      name: null,
      passwordHash: "unused",
      createdAt: new Date(),
    });
    const docker = await measure("docker", userId);
    const out = figuresOf("docker", docker);
    if (absent) {
      log(`kubernetes: not measured (${absent})`);
      return out;
    }
    const kube = await measure("kubernetes", userId);
    return {
      ...out,
      ...figuresOf("k8s", kube),
      k8s_over_docker_cold_start_p50: round(kube.coldP50 / docker.coldP50, 2),
      k8s_over_docker_acquire_p50: round(kube.acquireP50 / docker.acquireP50, 2),
      k8s_over_docker_memory_in_use: round(kube.usedMiB / docker.usedMiB, 2),
    };
  } finally {
    await setDatabaseForTests(undefined);
    await db.drop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchKubernetes().then(
    (results) => console.log(JSON.stringify(results, null, 2)),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
