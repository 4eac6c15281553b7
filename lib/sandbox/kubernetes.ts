/**
 * The Kubernetes sandbox driver (SANDBOX_DRIVER=kubernetes): one hardened pod per sandbox in the sandboxes'
 * namespace, behind a NetworkPolicy of its own and the namespace's default-deny one, through
 * `@kubernetes/client-node` 1.x (loaded on first use: a Docker deployment never loads it). What it asks the
 * cluster for is in kubernetes-pod.ts; docs/kubernetes.md ("The driver") says what the cluster must allow.
 */
import { readFileSync } from "node:fs";
import { Writable } from "node:stream";
import type { CoreV1Api, Exec, KubeConfig, NetworkingV1Api, V1Pod, V1Status } from "@kubernetes/client-node";
import { log } from "@/lib/log";
import type { DriverSandbox, ExecResult, IsolationTarget, SandboxDriver, SandboxSpec, StartedSandbox } from "./driver";
import { isEngineDown, LABEL_EXPIRES, LABEL_NAMESPACE, LABEL_OWNER, LABEL_SANDBOX, sandboxUnavailable } from "./engine";
import {
  BASELINE_POLICY,
  baselinePolicyManifest,
  CONTAINER_NAME,
  deadlineSeconds,
  endpointFor,
  exitCodeOf,
  gatewayFromRouteTable,
  imageListed,
  objectName,
  podFailure,
  podManifest,
  podPending,
  podReady,
  DEFAULT_APP_NAMESPACE,
  sandboxPolicyManifest,
  sandboxSelector,
} from "./kubernetes-pod";

export const DEFAULT_K8S_NAMESPACE = "sitewright-sandboxes";

/** The names the sandbox config gives them (SANDBOX_K8S_NAMESPACE, SANDBOX_K8S_RUNTIME_CLASS, KUBECONFIG). */
export type KubernetesDriverOptions = {
  k8sNamespace?: string;
  k8sRuntimeClass?: string;
  /** A kubeconfig file; without one, the client's default (KUBECONFIG, ~/.kube/config, or in-cluster). */
  kubeconfig?: string;
  /** A loaded config instead of a file. */
  kubeConfig?: KubeConfig;
  /** How long `start` waits for the pod to run with an address. */
  startTimeoutMs?: number;
  /** A policy younger than this may belong to a pod being made right now: `pruneLeftovers` leaves it. */
  leftoverAgeMs?: number;
};

type Clients = { core: CoreV1Api; networking: NetworkingV1Api; exec: Exec };

const CALL_TIMEOUT_MS = 20_000;
const START_TIMEOUT_MS = 60_000;
const START_POLL_MS = 200;
/** A policy younger than this may belong to a pod being created right now (the policy is made first). */
const LEFTOVER_AGE_MS = 60_000;

const statusOf = (error: unknown) => {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "number" ? code : undefined;
};
/** 404 is "already gone" for a delete or a read. */
const ignoreGone =
  <T>(fallback: T) =>
  (error: unknown) => {
    if (statusOf(error) === 404) return fallback;
    throw error;
  };
const timedOut = (what: string, ms: number) =>
  Object.assign(new Error(`the Kubernetes API did not answer ${what} within ${ms} ms`), { code: "ETIMEDOUT" });

/** A sink for an exec's stdout or stderr. */
function collector(chunks: Buffer[]): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(Buffer.from(chunk));
      done();
    },
  });
}

export class KubernetesDriver implements SandboxDriver {
  readonly name = "kubernetes" as const;
  /** The Kubernetes namespace sandboxes run in (not the deployment's namespace label). */
  readonly k8sNamespace: string;
  private clients?: Promise<Clients>;

  constructor(private readonly options: KubernetesDriverOptions = {}) {
    this.k8sNamespace = options.k8sNamespace || DEFAULT_K8S_NAMESPACE;
  }

  private api(): Promise<Clients> {
    this.clients ??= import("@kubernetes/client-node")
      .then((k8s) => {
        let config = this.options.kubeConfig;
        if (!config) {
          config = new k8s.KubeConfig();
          if (this.options.kubeconfig) config.loadFromFile(this.options.kubeconfig);
          else config.loadFromDefault();
        }
        return {
          core: config.makeApiClient(k8s.CoreV1Api),
          networking: config.makeApiClient(k8s.NetworkingV1Api),
          exec: new k8s.Exec(config),
        };
      })
      .catch((error) => {
        this.clients = undefined;
        throw error;
      });
    return this.clients;
  }

  /** Runs API calls, bounded in time, turning "cannot reach the cluster" into `503 sandbox_unavailable`. */
  private async call<T>(what: string, action: (api: Clients) => Promise<T>, timeoutMs = CALL_TIMEOUT_MS): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const api = await this.api();
      return await Promise.race([
        action(api),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(timedOut(what, timeoutMs)), timeoutMs);
          timer.unref();
        }),
      ]);
    } catch (error) {
      if (isEngineDown(error)) {
        log.warn("Kubernetes API unreachable", { what, error });
        throw sandboxUnavailable(error);
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  async ping(): Promise<void> {
    await this.call(
      "ping",
      ({ core }) => core.listNamespacedPod({ namespace: this.k8sNamespace, limit: 1, labelSelector: LABEL_SANDBOX }),
      3_000,
    );
  }

  /**
   * The namespace's default-deny policy, ensured before every start (one create the API answers 409 to once it
   * exists): one deleted by hand is back before the next sandbox runs.
   */
  private async ensureBaseline(): Promise<void> {
    await this.call("baseline policy", async ({ networking }) => {
      await networking
        .createNamespacedNetworkPolicy({ namespace: this.k8sNamespace, body: baselinePolicyManifest() })
        .catch((error) => {
          if (statusOf(error) !== 409) throw error;
        });
    });
  }

  /**
   * Makes the policies, then the pod, and waits (bounded) until it runs with an address. A pod that cannot run (its
   * image missing, its container not made) or does not run in time is removed, and the start fails saying why.
   */
  async start(spec: SandboxSpec): Promise<StartedSandbox> {
    const name = objectName(spec.sandboxId);
    await this.ensureBaseline();
    await this.call("create policy", async ({ networking }) => {
      await networking
        .createNamespacedNetworkPolicy({
          namespace: this.k8sNamespace,
          body: sandboxPolicyManifest(spec, appNamespace()),
        })
        .catch((error) => {
          if (statusOf(error) !== 409) throw error; // left by an earlier attempt for this sandbox: the same policy
        });
    });
    try {
      const body = podManifest(spec, { runtimeClass: this.options.k8sRuntimeClass });
      await this.call("create pod", ({ core }) => core.createNamespacedPod({ namespace: this.k8sNamespace, body }));
    } catch (error) {
      if (statusOf(error) !== 409) await this.removeLeftovers(spec.sandboxId).catch(() => {});
      throw error;
    }
    const pod = await this.waitForPod(name);
    return { handle: name, endpoint: endpointFor(pod.status!.podIP!), node: pod.spec?.nodeName ?? "" };
  }

  private async waitForPod(name: string): Promise<V1Pod> {
    const timeoutMs = this.options.startTimeoutMs ?? START_TIMEOUT_MS;
    const deadline = Date.now() + timeoutMs;
    let pod: V1Pod | undefined;
    while (Date.now() < deadline) {
      pod = await this.readPod(name);
      if (!pod) throw new Error(`the sandbox pod ${name} was deleted while starting`);
      if (podReady(pod)) return pod;
      const failure = podFailure(pod);
      if (failure) {
        await this.remove(name).catch((error) => log.warn("could not remove a failed sandbox pod", { name, error }));
        throw new Error(`the sandbox pod ${name} cannot run: ${failure}`);
      }
      await new Promise((resolve) => setTimeout(resolve, START_POLL_MS));
    }
    await this.remove(name).catch((error) => log.warn("could not remove a sandbox pod", { name, error }));
    const why = pod ? podPending(pod) : "never read";
    const error = new Error(`the sandbox pod ${name} did not run within ${timeoutMs} ms (${why})`);
    // No node has room (or the scheduler is down): like an engine that cannot be reached, try again later.
    if (why.startsWith("not scheduled")) throw sandboxUnavailable(error);
    throw error;
  }

  private readPod(name: string): Promise<V1Pod | undefined> {
    return this.call("read pod", ({ core }) =>
      core.readNamespacedPod({ name, namespace: this.k8sNamespace }).catch(ignoreGone(undefined)),
    );
  }

  /** The container's output so far; empty while the container is not made yet (the API answers 400). */
  async logs(handle: string): Promise<string> {
    return this.call("logs", ({ core }) =>
      core
        .readNamespacedPodLog({ name: handle, namespace: this.k8sNamespace, container: CONTAINER_NAME })
        .then((text) => String(text ?? ""))
        .catch((error) => {
          if (statusOf(error) === 400) return "";
          throw error;
        }),
    );
  }

  /**
   * Runs a command in the sandbox's container (as its user, 10001: Kubernetes runs execs as the container's user)
   * over the API's WebSocket; the exit code comes from the status the API sends when the command ends.
   */
  async exec(handle: string, cmd: string[], options: { timeoutMs?: number } = {}): Promise<ExecResult> {
    const timeoutMs = options.timeoutMs ?? 30_000;
    return this.call(
      "exec",
      ({ exec }) =>
        new Promise<ExecResult>((resolve, reject) => {
          const out: Buffer[] = [];
          const err: Buffer[] = [];
          let status: V1Status | undefined;
          let socket: { close(): void } | undefined;
          const timer = setTimeout(() => {
            socket?.close();
            reject(new Error(`exec timed out after ${timeoutMs} ms: ${cmd[0]}`));
          }, timeoutMs);
          const finish = () => {
            clearTimeout(timer);
            const stdout = Buffer.concat(out).toString("utf8");
            resolve({ exitCode: exitCodeOf(status), stdout, stderr: Buffer.concat(err).toString("utf8") });
          };
          exec
            .exec(this.k8sNamespace, handle, CONTAINER_NAME, cmd, collector(out), collector(err), null, false, (s) => {
              status = s;
              if (s.status !== "Success" && !s.details?.causes?.some((c) => c.reason === "ExitCode") && s.message)
                err.push(Buffer.from(s.message));
            })
            .then((ws) => {
              socket = ws;
              ws.on("close", finish);
            })
            .catch((error: { message?: string; error?: unknown }) => {
              clearTimeout(timer);
              // Before the socket opens, `ws` reports an event whose `error` holds the cause (ECONNREFUSED, a 404).
              reject(new Error(`exec in ${handle} failed: ${error.message ?? String(error)}`, { cause: error.error }));
            });
        }),
      timeoutMs + 5_000,
    );
  }

  /** Deletes the pod at once (no grace: its containers are killed), then its policy; either gone is not an error. */
  async remove(handle: string): Promise<void> {
    await this.call("remove pod", ({ core }) =>
      core
        .deleteNamespacedPod({ name: handle, namespace: this.k8sNamespace, gracePeriodSeconds: 0 })
        .catch(ignoreGone(undefined)),
    );
    await this.deletePolicy(handle);
  }

  private async deletePolicy(name: string): Promise<void> {
    await this.call("remove policy", ({ networking }) =>
      networking.deleteNamespacedNetworkPolicy({ name, namespace: this.k8sNamespace }).catch(ignoreGone(undefined)),
    );
  }

  /** The sandbox's own policy (the namespace's default-deny one still holds its pod if one is left). */
  async removeLeftovers(sandboxId: string): Promise<void> {
    await this.deletePolicy(objectName(sandboxId));
  }

  async list(namespace?: string): Promise<DriverSandbox[]> {
    const pods = await this.call("list pods", ({ core }) =>
      core.listNamespacedPod({ namespace: this.k8sNamespace, labelSelector: sandboxSelector(namespace) }),
    );
    return pods.items.map((pod) => {
      const { annotations = {}, labels = {} } = pod.metadata ?? {};
      const expires = annotations[LABEL_EXPIRES];
      return {
        handle: pod.metadata?.name ?? "",
        sandboxId: annotations[LABEL_SANDBOX] ?? labels[LABEL_SANDBOX] ?? "",
        namespace: annotations[LABEL_NAMESPACE] ?? labels[LABEL_NAMESPACE] ?? "",
        owner: annotations[LABEL_OWNER] ?? labels[LABEL_OWNER] ?? "",
        expiresAt: expires && !Number.isNaN(Date.parse(expires)) ? new Date(expires) : undefined,
        running: pod.status?.phase === "Running" && !pod.metadata?.deletionTimestamp,
        createdAt: new Date(pod.metadata?.creationTimestamp ?? 0),
      };
    });
  }

  async isRunning(handle: string): Promise<boolean> {
    const pod = await this.readPod(handle);
    return pod?.status?.phase === "Running" && !pod.metadata?.deletionTimestamp;
  }

  /**
   * The node's side of the pod's network, as the pod sees it (its default route's gateway, read from inside), and
   * the node it runs on: the isolation probe connects there.
   */
  async isolationTarget(handle: string): Promise<IsolationTarget> {
    const pod = await this.readPod(handle);
    const routes = await this.exec(handle, ["cat", "/proc/net/route"], { timeoutMs: 10_000 });
    const gateway = routes.exitCode === 0 ? gatewayFromRouteTable(routes.stdout) : undefined;
    return { gateway, node: pod?.spec?.nodeName ?? "" };
  }

  /**
   * Lowers the pod's deadline to a new expiry (a pool member handed to a user gets the user's TTL). Kubernetes
   * lets `activeDeadlineSeconds` only go down: a later expiry leaves it as it is. False when the pod is gone.
   */
  async setExpiry(handle: string, expiresAt: Date): Promise<boolean> {
    const pod = await this.readPod(handle);
    if (!pod) return false;
    const started = pod.status?.startTime ?? pod.metadata?.creationTimestamp ?? new Date();
    const seconds = deadlineSeconds(expiresAt, new Date(started));
    const current = pod.spec?.activeDeadlineSeconds;
    if (current !== undefined && seconds >= current) return true;
    const { PatchStrategy, setHeaderOptions } = await import("@kubernetes/client-node");
    const body = {
      metadata: { annotations: { [LABEL_EXPIRES]: expiresAt.toISOString() } },
      spec: { activeDeadlineSeconds: seconds },
    };
    await this.call("set expiry", ({ core }) =>
      core.patchNamespacedPod(
        { name: handle, namespace: this.k8sNamespace, body },
        setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
      ),
    );
    return true;
  }

  /** Removes this deployment's sandbox policies whose sandbox is not live and has no pod (older than a minute). */
  async pruneLeftovers(namespace: string, liveSandboxIds: Set<string>): Promise<string[]> {
    const selector = sandboxSelector(namespace);
    const [policies, pods] = await this.call("list policies", ({ networking, core }) =>
      Promise.all([
        networking.listNamespacedNetworkPolicy({ namespace: this.k8sNamespace, labelSelector: selector }),
        core.listNamespacedPod({ namespace: this.k8sNamespace, labelSelector: selector }),
      ]),
    );
    const podNames = new Set(pods.items.map((pod) => pod.metadata?.name));
    const removed: string[] = [];
    for (const policy of policies.items) {
      const name = policy.metadata?.name;
      if (!name || name === BASELINE_POLICY || podNames.has(name)) continue;
      const sandboxId = policy.metadata?.annotations?.[LABEL_SANDBOX] ?? policy.metadata?.labels?.[LABEL_SANDBOX] ?? "";
      const created = new Date(policy.metadata?.creationTimestamp ?? 0).getTime();
      if (liveSandboxIds.has(sandboxId) || Date.now() - created < (this.options.leftoverAgeMs ?? LEFTOVER_AGE_MS))
        continue;
      await this.deletePolicy(name).catch((error) => log.warn("could not remove a sandbox policy", { name, error }));
      removed.push(name);
    }
    return removed;
  }

  /** Whether a node lists the image among its own (`status.images`, which holds a node's largest images only). */
  async nodeHasImage(tag: string): Promise<boolean> {
    const nodes = await this.call("list nodes", ({ core }) => core.listNode());
    return nodes.items.some((node) => node.status?.images?.some((image) => imageListed(image.names ?? [], tag)));
  }

  /**
   * True when a node lists the image; otherwise unknown, and true as well: a registry the nodes pull from may hold
   * it (a pod that cannot get it fails to start, saying why).
   */
  async imageExists(tag: string): Promise<boolean> {
    try {
      if (await this.nodeHasImage(tag)) return true;
      log.info("no node lists the sandbox image: assuming a registry holds it", { tag });
    } catch (error) {
      if ((error as { code?: unknown }).code === "sandbox_unavailable") throw error;
      log.info("could not list nodes to find the sandbox image: assuming it can be pulled", { tag, error });
    }
    return true;
  }
}

/** The driver for SANDBOX_DRIVER=kubernetes; nothing is loaded or asked of the cluster until the first call. */
export function createKubernetesDriver(options: KubernetesDriverOptions = {}): KubernetesDriver {
  return new KubernetesDriver(options);
}

/**
 * The namespace the app's pods run in, which alone may reach sandboxes: its own service account's namespace when it
 * runs in the cluster, else the manifests' (an app outside the cluster is no pod a policy could admit anyway).
 */
function appNamespace(): string {
  try {
    return readFileSync(IN_CLUSTER_NAMESPACE_FILE, "utf8").trim() || DEFAULT_APP_NAMESPACE;
  } catch {
    return DEFAULT_APP_NAMESPACE;
  }
}
const IN_CLUSTER_NAMESPACE_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";
