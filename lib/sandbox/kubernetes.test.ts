/**
 * What the Kubernetes driver asks the cluster for, read as the API receives it: the client's serializer drops any
 * field it does not know, so every assertion runs on the serialized pod and policies. The real cluster's tests are
 * kubernetes.k8s.test.ts.
 */
import { ObjectSerializer } from "@kubernetes/client-node/dist/serializer.js";
import type { V1Pod } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { isAppError } from "@/lib/errors";
import type { SandboxSpec } from "./driver";
import { createKubernetesDriver } from "./kubernetes";
import { LABEL_EXPIRES, LABEL_NAMESPACE, LABEL_OWNER, LABEL_SANDBOX } from "./engine";
import {
  BASELINE_POLICY,
  baselinePolicyManifest,
  deadlineSeconds,
  endpointFor,
  exitCodeOf,
  gatewayFromRouteTable,
  imageListed,
  labelValue,
  objectName,
  podFailure,
  podManifest,
  podPending,
  podReady,
  sandboxPolicyManifest,
  sandboxSelector,
} from "./kubernetes-pod";

const now = new Date("2026-11-27T12:00:00Z");
const spec: SandboxSpec = {
  sandboxId: "0b6f3c1e-5a0e-4c5e-9d43-3f1a2b7c9e10",
  image: "localhost/sitewright-sandbox:abc123",
  namespace: "3f2a9c0d1e4b",
  owner: "pool",
  expiresAt: new Date(now.getTime() + 30 * 60_000),
};
const wire = (object: unknown, type: string): any =>
  JSON.parse(JSON.stringify(ObjectSerializer.serialize(object, type, "")));

describe("the sandbox pod", () => {
  const pod = wire(podManifest(spec, { now }), "V1Pod");
  const container = pod.spec.containers[0];

  it("runs as 10001, non-root, with no capabilities, no privilege escalation, a read-only root and RuntimeDefault seccomp", () => {
    expect(pod.spec.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 10001,
      runAsGroup: 10001,
      fsGroup: 10001,
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect(pod.spec.containers).toHaveLength(1);
    expect(pod.spec.initContainers).toBeUndefined();
    expect(container.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 10001,
      runAsGroup: 10001,
      seccompProfile: { type: "RuntimeDefault" },
      privileged: false,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
    });
  });

  it("writes only to memory-backed /data and /tmp, with size limits", () => {
    expect(pod.spec.volumes).toEqual([
      { name: "data", emptyDir: { medium: "Memory", sizeLimit: "64Mi" } },
      { name: "tmp", emptyDir: { medium: "Memory", sizeLimit: "16Mi" } },
    ]);
    expect(container.volumeMounts).toEqual([
      { name: "data", mountPath: "/data" },
      { name: "tmp", mountPath: "/tmp" },
    ]);
  });

  it("asks for CPU and memory below its limits (requests equal to limits fit two sandboxes on a 2-core node)", () => {
    expect(container.resources.limits).toEqual({ cpu: "1000m", memory: "256Mi" });
    expect(container.resources.requests).toEqual({ cpu: "100m", memory: "96Mi" });
  });

  it("gets no token, no service links, no host namespaces, no DNS, no restarts, and no secrets in its environment", () => {
    expect(pod.spec).toMatchObject({
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      hostNetwork: false,
      hostPID: false,
      hostIPC: false,
      shareProcessNamespace: false,
      restartPolicy: "Never",
      dnsPolicy: "None",
      dnsConfig: { nameservers: ["127.0.0.1"], searches: [] },
      terminationGracePeriodSeconds: 1,
    });
    expect(container.env).toEqual([]);
    expect(container.envFrom).toBeUndefined();
    expect(pod.spec.serviceAccountName).toBeUndefined();
  });

  it("ends by itself at its expiry (activeDeadlineSeconds), at least one second away", () => {
    expect(pod.spec.activeDeadlineSeconds).toBe(30 * 60);
    expect(deadlineSeconds(new Date(now.getTime() + 20_500), now)).toBe(21);
    expect(deadlineSeconds(new Date(now.getTime() - 60_000), now)).toBe(1);
  });

  it("runs the image given, pulled only when the node lacks it, answering on 8080", () => {
    expect(container).toMatchObject({
      name: "sandbox",
      image: spec.image,
      imagePullPolicy: "IfNotPresent",
      ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
    });
    expect(container.command).toBeUndefined();
  });

  it("takes the runtime class only when one is configured", () => {
    expect(pod.spec.runtimeClassName).toBeUndefined();
    expect(wire(podManifest(spec, { runtimeClass: "gvisor", now }), "V1Pod").spec.runtimeClassName).toBe("gvisor");
  });

  it("is named and labelled for its sandbox, deployment and owner, with the values and expiry as annotations", () => {
    expect(pod.metadata.name).toBe(`sitewright-${spec.sandboxId}`);
    expect(pod.metadata.labels).toMatchObject({
      [LABEL_SANDBOX]: spec.sandboxId,
      [LABEL_NAMESPACE]: spec.namespace,
      [LABEL_OWNER]: "pool",
    });
    expect(pod.metadata.annotations).toEqual({
      [LABEL_SANDBOX]: spec.sandboxId,
      [LABEL_NAMESPACE]: spec.namespace,
      [LABEL_OWNER]: "pool",
      [LABEL_EXPIRES]: spec.expiresAt.toISOString(),
    });
  });
});

describe("label values and names", () => {
  it("keep valid values and hash the rest into valid ones", () => {
    expect(labelValue("memory-0a1b2c3d4e5f")).toBe("memory-0a1b2c3d4e5f");
    for (const value of ["user@example.com", "-leading", "x".repeat(64), "ends.", "a b", ""]) {
      const label = labelValue(value);
      if (value === "") expect(label).toBe("");
      else expect(label).toMatch(/^h-[0-9a-f]{40}$/);
      expect(label.length).toBeLessThanOrEqual(63);
    }
    expect(labelValue("user@example.com")).toBe(labelValue("user@example.com"));
    expect(labelValue("user@example.com")).not.toBe(labelValue("user@example.org"));
  });

  it("name pods and policies as DNS labels, whatever the id", () => {
    expect(objectName("abc-123")).toBe("sitewright-abc-123");
    for (const id of ["ABC_123", "x".repeat(60), "a.b"]) expect(objectName(id)).toMatch(/^sitewright-h-[0-9a-f]{32}$/);
  });

  it("select a deployment's sandboxes by its label, or every sandbox", () => {
    expect(sandboxSelector()).toBe(LABEL_SANDBOX);
    expect(sandboxSelector("a@b")).toBe(`${LABEL_SANDBOX},${LABEL_NAMESPACE}=${labelValue("a@b")}`);
    const owner = wire(podManifest({ ...spec, owner: "someone@example.com" }, { now }), "V1Pod").metadata;
    expect(owner.labels[LABEL_OWNER]).toMatch(/^h-/);
    expect(owner.annotations[LABEL_OWNER]).toBe("someone@example.com");
  });
});

describe("the network policies", () => {
  it("give a sandbox no egress and admit only the app's pods in the app's own namespace, on 8080", () => {
    const policy = wire(sandboxPolicyManifest(spec, "apps"), "V1NetworkPolicy");
    expect(policy.metadata.name).toBe(objectName(spec.sandboxId));
    expect(policy.metadata.labels).toMatchObject({
      [LABEL_SANDBOX]: spec.sandboxId,
      [LABEL_NAMESPACE]: spec.namespace,
    });
    expect(policy.spec).toEqual({
      podSelector: { matchLabels: { [LABEL_SANDBOX]: spec.sandboxId } },
      policyTypes: ["Ingress", "Egress"],
      ingress: [
        {
          // Any namespace would widen the operator's default-deny (policies add up) to whoever labels a pod so.
          from: [
            {
              namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "apps" } },
              podSelector: { matchLabels: { "app.kubernetes.io/name": "sitewright" } },
            },
          ],
          ports: [{ protocol: "TCP", port: 8080 }],
        },
      ],
      egress: [],
    });
    expect(wire(sandboxPolicyManifest(spec), "V1NetworkPolicy").spec.ingress[0].from[0].namespaceSelector).toEqual({
      matchLabels: { "kubernetes.io/metadata.name": "sitewright" },
    });
  });

  it("deny every sandbox pod of the namespace everything, whatever other policy exists", () => {
    const policy = wire(baselinePolicyManifest(), "V1NetworkPolicy");
    expect(policy.metadata.name).toBe(BASELINE_POLICY);
    expect(policy.spec).toEqual({
      podSelector: { matchExpressions: [{ key: LABEL_SANDBOX, operator: "Exists" }] },
      policyTypes: ["Ingress", "Egress"],
      ingress: [],
      egress: [],
    });
  });
});

describe("reading what the cluster answers", () => {
  const waiting = (reason: string, message?: string): V1Pod => ({
    status: { phase: "Pending", containerStatuses: [{ state: { waiting: { reason, message } } } as never] },
  });

  it("tells a pod that will never run from one that is starting", () => {
    expect(podFailure(waiting("ErrImageNeverPull", "image not present"))).toBe("ErrImageNeverPull: image not present");
    expect(podFailure(waiting("ImagePullBackOff"))).toBe("ImagePullBackOff");
    expect(podFailure(waiting("CreateContainerError", "bad"))).toBe("CreateContainerError: bad");
    expect(podFailure(waiting("ContainerCreating"))).toBeUndefined();
    expect(podFailure({ status: { phase: "Pending" } })).toBeUndefined();
    expect(podFailure({ status: { phase: "Failed", reason: "DeadlineExceeded" } })).toBe(
      "the pod failed (DeadlineExceeded)",
    );
    expect(podPending(waiting("ContainerCreating"))).toBe("waiting: ContainerCreating");
    expect(
      podPending({
        status: { conditions: [{ type: "PodScheduled", status: "False", message: "0/1 nodes: Insufficient cpu" }] },
      }),
    ).toBe("not scheduled: 0/1 nodes: Insufficient cpu");
  });

  it("answers once the pod runs with an address, not while it is deleted", () => {
    expect(podReady({ status: { phase: "Running", podIP: "10.244.7.5" } })).toBe(true);
    expect(podReady({ status: { phase: "Running" } })).toBe(false);
    expect(podReady({ status: { phase: "Pending", podIP: "10.244.7.5" } })).toBe(false);
    expect(podReady({ metadata: { deletionTimestamp: now }, status: { phase: "Running", podIP: "10.244.7.5" } })).toBe(
      false,
    );
    expect(endpointFor("10.244.7.5")).toBe("http://10.244.7.5:8080");
    expect(endpointFor("fd00::5")).toBe("http://[fd00::5]:8080");
  });

  it("reads the default route's gateway from /proc/net/route", () => {
    const table = [
      "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT",
      "eth0\t00000000\t0107F40A\t0003\t0\t0\t0\t00000000\t0\t0\t0",
      "eth0\t0007F40A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0",
    ].join("\n");
    expect(gatewayFromRouteTable(table)).toBe("10.244.7.1");
    expect(
      gatewayFromRouteTable(
        table
          .split("\n")
          .filter((l) => !l.includes("0107F40A"))
          .join("\n"),
      ),
    ).toBeUndefined();
  });

  it("reads an exec's exit code from its status", () => {
    expect(exitCodeOf({ status: "Success" })).toBe(0);
    expect(
      exitCodeOf({
        status: "Failure",
        reason: "NonZeroExitCode",
        details: { causes: [{ reason: "ExitCode", message: "3" }] },
      }),
    ).toBe(3);
    expect(exitCodeOf({ status: "Failure", message: "executable file not found in $PATH" })).toBe(126);
    expect(exitCodeOf(undefined)).toBe(-1);
  });

  it("finds an image under the names containerd lists it by", () => {
    expect(imageListed(["localhost/sitewright-sandbox:abc123"], "localhost/sitewright-sandbox:abc123")).toBe(true);
    expect(imageListed(["docker.io/library/nginx:latest"], "nginx")).toBe(true);
    expect(imageListed(["docker.io/acme/wp:1"], "acme/wp:1")).toBe(true);
    expect(imageListed(["registry.example/acme/wp:1"], "acme/wp:1")).toBe(false);
    expect(imageListed(["localhost/sitewright-sandbox:old"], "localhost/sitewright-sandbox:abc123")).toBe(false);
  });
});

describe("a cluster that cannot be reached", () => {
  it("answers 503 sandbox_unavailable, as an engine that cannot be reached does", async () => {
    const { KubeConfig } = await import("@kubernetes/client-node");
    const kubeConfig = new KubeConfig();
    // Port 1 on loopback: nothing listens, the connection is refused at once.
    kubeConfig.loadFromClusterAndUser(
      { name: "down", server: "https://127.0.0.1:1", skipTLSVerify: true },
      { name: "u" },
    );
    const driver = createKubernetesDriver({ kubeConfig });
    for (const call of [() => driver.ping(), () => driver.start(spec), () => driver.list(), () => driver.remove("x")]) {
      const error = await call().catch((e: unknown) => e);
      expect(isAppError(error) && error.code).toBe("sandbox_unavailable");
    }
    expect(await driver.exec("x", ["true"]).catch((e: unknown) => isAppError(e) && e.code)).toBe("sandbox_unavailable");
  });
});
