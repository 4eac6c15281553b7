/**
 * What the Kubernetes driver asks the cluster for, as plain objects (no client, no I/O): the sandbox's pod, hardened
 * as the Docker driver's containers are (SECURITY.md, "Containers"), its NetworkPolicy and the namespace's
 * default-deny one, and the readings of what the cluster answers (why a pod failed, its gateway, an exec's exit
 * code). Only stable APIs: v1 Pod, networking.k8s.io/v1 NetworkPolicy, a RuntimeClass by name.
 */
import { createHash } from "node:crypto";
import type { V1NetworkPolicy, V1Pod, V1Status } from "@kubernetes/client-node";
import type { SandboxSpec } from "./driver";
import { LABEL_EXPIRES, LABEL_NAMESPACE, LABEL_OWNER, LABEL_SANDBOX, SANDBOX_LIMITS, SANDBOX_PORT } from "./engine";

/** The sandbox's one container. */
export const CONTAINER_NAME = "sandbox";
/** The image's unprivileged user and group (scripts/sandbox/rootfs.sh), as the Docker driver's `SANDBOX_USER`. */
export const SANDBOX_UID = 10001;
/** The label the app's own pods carry: only they may open a sandbox's port (docs/kubernetes.md). */
export const APP_LABEL = { "app.kubernetes.io/name": "sitewright" } as const;
/** The app's namespace in deploy/kubernetes/, when the app does not run in the cluster to read its own. */
export const DEFAULT_APP_NAMESPACE = "sitewright";
/** Every sandbox pod and policy also carries these (for people: `kubectl get pods -l app.kubernetes.io/name=…`). */
const COMMON_LABELS = {
  "app.kubernetes.io/name": "sitewright-sandbox",
  "app.kubernetes.io/managed-by": "sitewright",
} as const;
/** The namespace-wide policy that denies every sandbox pod all traffic, whatever else exists or is gone. */
export const BASELINE_POLICY = "sitewright-sandboxes-deny";

/**
 * What the scheduler is asked to reserve (requests) and what the kernel enforces (limits). Requests are lower than
 * limits: with limits alone Kubernetes sets requests equal to them, and a 2-core node held 2 sandboxes
 * (ENVIRONMENT.md). An idle sandbox needs far less than its limit (docs/performance.md).
 */
export const POD_RESOURCES = {
  requests: { cpu: "100m", memory: "96Mi" },
  limits: {
    cpu: `${SANDBOX_LIMITS.nanoCpus / 1_000_000}m`,
    memory: `${SANDBOX_LIMITS.memoryBytes / 2 ** 20}Mi`,
  },
} as const;
/** The memory-backed writable directories (emptyDir `medium: Memory`, counted in the pod's memory). */
export const POD_VOLUMES = {
  data: { mountPath: "/data", sizeLimit: `${SANDBOX_LIMITS.dataTmpfsBytes / 2 ** 20}Mi` },
  tmp: { mountPath: "/tmp", sizeLimit: "16Mi" },
} as const;

/** Waiting reasons after which a container never starts on its own: the pod is removed and the start fails. */
const FATAL_WAITING = new Set([
  "ImagePullBackOff",
  "ErrImageNeverPull",
  "InvalidImageName",
  "CreateContainerError",
  "CreateContainerConfigError",
  "RunContainerError",
  "CrashLoopBackOff",
]);

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const digest = (value: string, length: number) => createHash("sha256").update(value).digest("hex").slice(0, length);

/**
 * A value Kubernetes accepts as a label value (at most 63 characters of letters, digits, `-_.`, starting and ending
 * with a letter or digit): the value itself when it is one (ids, our namespaces, "pool"), else `h-` and a hash of
 * it. Selecting uses the same function; the value as given is kept in an annotation.
 */
export function labelValue(value: string): string {
  return value.length <= 63 && LABEL_VALUE.test(value) ? value : `h-${digest(value, 40)}`;
}

/** The pod's name, also its policy's: `sitewright-<sandboxId>`, or a hash when the id is not a DNS label. */
export function objectName(sandboxId: string): string {
  const name = `sitewright-${sandboxId}`;
  return name.length <= 63 && DNS_LABEL.test(name) ? name : `sitewright-h-${digest(sandboxId, 32)}`;
}

/** The labels that select a deployment's sandboxes (every deployment's when namespace is undefined). */
export function sandboxSelector(namespace?: string): string {
  return namespace === undefined ? LABEL_SANDBOX : `${LABEL_SANDBOX},${LABEL_NAMESPACE}=${labelValue(namespace)}`;
}

/** Whole seconds from now to the expiry, at least 1: the pod's `activeDeadlineSeconds`. */
export function deadlineSeconds(expiresAt: Date, now = new Date()): number {
  return Math.max(1, Math.ceil((expiresAt.getTime() - now.getTime()) / 1000));
}

function sandboxMetadata(spec: SandboxSpec) {
  return {
    name: objectName(spec.sandboxId),
    labels: {
      ...COMMON_LABELS,
      [LABEL_SANDBOX]: labelValue(spec.sandboxId),
      [LABEL_NAMESPACE]: labelValue(spec.namespace),
      [LABEL_OWNER]: labelValue(spec.owner),
    },
    // Label values may be hashes: the values as given, and the expiry (not a valid label value), are read from here.
    annotations: {
      [LABEL_SANDBOX]: spec.sandboxId,
      [LABEL_NAMESPACE]: spec.namespace,
      [LABEL_OWNER]: spec.owner,
      [LABEL_EXPIRES]: spec.expiresAt.toISOString(),
    },
  };
}

/**
 * The hardened pod: non-root 10001, no capabilities, no privilege escalation, read-only root, RuntimeDefault
 * seccomp, memory-backed /data and /tmp, CPU and memory requests and limits, no service-account token, no service
 * links, no host namespaces, no DNS (a nameserver where nothing answers: a sandbox looks nothing up), never
 * restarted, and `activeDeadlineSeconds` from the expiry so the cluster ends it with no app running. The pids
 * limit is the kubelet's `podPidsLimit` (not a pod field). A runtime class (gVisor, Kata) when the cluster has one.
 */
export function podManifest(spec: SandboxSpec, options: { runtimeClass?: string; now?: Date } = {}): V1Pod {
  const noPrivileges = {
    runAsNonRoot: true,
    runAsUser: SANDBOX_UID,
    runAsGroup: SANDBOX_UID,
    seccompProfile: { type: "RuntimeDefault" },
  };
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: sandboxMetadata(spec),
    spec: {
      ...(options.runtimeClass ? { runtimeClassName: options.runtimeClass } : {}),
      restartPolicy: "Never",
      activeDeadlineSeconds: deadlineSeconds(spec.expiresAt, options.now),
      terminationGracePeriodSeconds: 1,
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      hostNetwork: false,
      hostPID: false,
      hostIPC: false,
      shareProcessNamespace: false,
      dnsPolicy: "None",
      // dnsPolicy None needs one nameserver: loopback, where nothing listens, so a lookup fails at once.
      dnsConfig: { nameservers: ["127.0.0.1"], searches: [], options: [{ name: "ndots", value: "1" }] },
      securityContext: { ...noPrivileges, fsGroup: SANDBOX_UID },
      containers: [
        {
          name: CONTAINER_NAME,
          image: spec.image,
          // Preloaded images (the CI harness imports ours into containerd) run as they are; others are pulled.
          imagePullPolicy: "IfNotPresent",
          env: [],
          ports: [{ name: "http", containerPort: SANDBOX_PORT, protocol: "TCP" }],
          resources: { requests: { ...POD_RESOURCES.requests }, limits: { ...POD_RESOURCES.limits } },
          securityContext: {
            ...noPrivileges,
            privileged: false,
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            capabilities: { drop: ["ALL"] },
          },
          volumeMounts: Object.entries(POD_VOLUMES).map(([name, volume]) => ({ name, mountPath: volume.mountPath })),
        },
      ],
      volumes: Object.entries(POD_VOLUMES).map(([name, volume]) => ({
        name,
        emptyDir: { medium: "Memory", sizeLimit: volume.sizeLimit },
      })),
    },
  };
}

/**
 * The sandbox's own policy: it selects its pod, denies all egress (`Egress` listed with no rule), and admits only
 * the app's pods (labelled `app.kubernetes.io/name: sitewright`) in the app's own namespace on the sandbox's port.
 * Policies add up, so a wider rule here (any namespace) would undo the operator's default-deny for whoever may
 * label a pod so anywhere. The namespace is matched by `kubernetes.io/metadata.name` (set by clusters since 1.21;
 * deploy/kubernetes/namespaces.yaml writes it for older ones). Made before the pod, removed after it.
 */
export function sandboxPolicyManifest(spec: SandboxSpec, appNamespace = DEFAULT_APP_NAMESPACE): V1NetworkPolicy {
  const { annotations, ...metadata } = sandboxMetadata(spec);
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: {
      ...metadata,
      annotations: {
        [LABEL_SANDBOX]: spec.sandboxId,
        [LABEL_NAMESPACE]: spec.namespace,
      },
    },
    spec: {
      podSelector: { matchLabels: { [LABEL_SANDBOX]: labelValue(spec.sandboxId) } },
      policyTypes: ["Ingress", "Egress"],
      ingress: [
        {
          // `_from` is the client's name for the API's `from` (a reserved word in its generator).
          _from: [
            {
              namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": appNamespace } },
              podSelector: { matchLabels: { ...APP_LABEL } },
            },
          ],
          ports: [{ protocol: "TCP", port: SANDBOX_PORT }],
        },
      ],
      egress: [],
    },
  };
}

/**
 * The namespace's floor: every pod with a sandbox label gets no traffic in or out but what another policy admits.
 * Policies only add: while a sandbox's own policy is gone (removed just after its pod was force-deleted, whose
 * containers may still be stopping) its pod still reaches nothing.
 */
export function baselinePolicyManifest(): V1NetworkPolicy {
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { name: BASELINE_POLICY, labels: { ...COMMON_LABELS } },
    spec: {
      podSelector: { matchExpressions: [{ key: LABEL_SANDBOX, operator: "Exists" }] },
      policyTypes: ["Ingress", "Egress"],
      ingress: [],
      egress: [],
    },
  };
}

/** Why a pod will never run (its phase, a container's fatal waiting reason, its end), or undefined while it may. */
export function podFailure(pod: V1Pod): string | undefined {
  const status = pod.status;
  for (const container of status?.containerStatuses ?? []) {
    const waiting = container.state?.waiting;
    if (waiting?.reason && FATAL_WAITING.has(waiting.reason))
      return `${waiting.reason}${waiting.message ? `: ${waiting.message}` : ""}`;
    const terminated = container.state?.terminated;
    if (terminated) return `the container ended (${terminated.reason ?? "exit"} ${terminated.exitCode})`;
  }
  if (status?.phase === "Failed" || status?.phase === "Succeeded")
    return `the pod ${status.phase.toLowerCase()}${status.reason ? ` (${status.reason})` : ""}${status.message ? `: ${status.message}` : ""}`;
  return undefined;
}

/** Why a pod is still pending (the scheduler's word, a container's waiting reason), for the timeout's message. */
export function podPending(pod: V1Pod): string {
  const unscheduled = pod.status?.conditions?.find((c) => c.type === "PodScheduled" && c.status === "False");
  if (unscheduled) return `not scheduled: ${unscheduled.message ?? unscheduled.reason ?? "no reason given"}`;
  const waiting = pod.status?.containerStatuses?.find((c) => c.state?.waiting)?.state?.waiting;
  if (waiting) return `waiting: ${waiting.reason ?? ""}${waiting.message ? ` ${waiting.message}` : ""}`;
  return `phase ${pod.status?.phase ?? "unknown"}`;
}

/** Running, not being deleted, with an address: the moment `start` answers. */
export function podReady(pod: V1Pod): boolean {
  return pod.status?.phase === "Running" && Boolean(pod.status.podIP) && !pod.metadata?.deletionTimestamp;
}

/** `http://<podIP>:8080` (brackets for IPv6). */
export function endpointFor(podIP: string): string {
  return `http://${podIP.includes(":") ? `[${podIP}]` : podIP}:${SANDBOX_PORT}`;
}

/**
 * The default route's gateway from `/proc/net/route` (the node's side of the pod's bridge, for the isolation
 * probe): the line whose destination is 00000000, its gateway a little-endian hex IPv4 address.
 */
export function gatewayFromRouteTable(table: string): string | undefined {
  for (const line of table.trim().split("\n").slice(1)) {
    const [, destination, gateway] = line.trim().split(/\s+/);
    if (destination !== "00000000" || !gateway || !/^[0-9A-Fa-f]{8}$/.test(gateway) || /^0{8}$/.test(gateway)) continue;
    const bytes = gateway.match(/../g)!.map((pair) => Number.parseInt(pair, 16));
    return bytes.reverse().join(".");
  }
  return undefined;
}

/**
 * An exec's exit code from the status the API sends on its error channel: `Success` is 0; a non-zero exit is a
 * `Failure` whose cause `ExitCode` holds it; a command that could not start at all (no such file) is 126.
 */
export function exitCodeOf(status: V1Status | undefined): number {
  if (!status) return -1;
  if (status.status === "Success") return 0;
  const cause = status.details?.causes?.find((c) => c.reason === "ExitCode");
  const code = Number(cause?.message);
  return cause && Number.isInteger(code) ? code : 126;
}

/**
 * Whether a node's image names hold `tag`: as written, or as containerd spells a short name
 * (`docker.io/library/…`, `docker.io/…`), with `:latest` when no tag is given.
 */
export function imageListed(names: string[], tag: string): boolean {
  const withTag = /:[^/]+$|@sha256:/.test(tag) ? tag : `${tag}:latest`;
  const firstPart = withTag.split("/")[0]!;
  const hasRegistry =
    withTag.includes("/") && (firstPart.includes(".") || firstPart.includes(":") || firstPart === "localhost");
  const candidates = new Set([tag, withTag]);
  if (!hasRegistry) {
    candidates.add(`docker.io/${withTag}`);
    if (!withTag.includes("/")) candidates.add(`docker.io/library/${withTag}`);
  }
  return names.some((name) => candidates.has(name));
}
