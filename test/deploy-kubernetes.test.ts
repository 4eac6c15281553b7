/**
 * The Kubernetes manifests (deploy/kubernetes, docs/kubernetes.md) kept true by machine: they parse, use only
 * stable APIs, set only settings lib/env.ts reads (the keys from the Secret), run the app image hardened as
 * scripts/deploy/build-image.ts builds it, grant the app exactly the verbs of sandbox-rbac.json in the sandbox
 * namespace SANDBOX_K8S_NAMESPACE defaults to, and cap that namespace by the sandbox's own limits. No cluster is
 * needed: docs/kubernetes.md says how the manifests were also checked against one.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import rbac from "@/deploy/kubernetes/sandbox-rbac.json";
import { envSchema } from "@/lib/env";
import { SANDBOX_LIMITS } from "@/lib/sandbox/engine";

const root = path.resolve(import.meta.dirname, "..");
const dir = path.join(root, "deploy/kubernetes");
const read = (file: string) => readFileSync(path.join(root, file), "utf8");

type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [key: string]: any;
};
type Loaded = { file: string; manifest: Manifest };

const yamlFiles = readdirSync(dir).filter((file) => /\.ya?ml$/.test(file));
const loaded: Loaded[] = yamlFiles.flatMap((file) =>
  parseAllDocuments(readFileSync(path.join(dir, file), "utf8")).map((document) => {
    if (document.errors.length > 0) throw new Error(`${file}: ${document.errors.map(String).join("; ")}`);
    return { file, manifest: document.toJS() as Manifest };
  }),
);
const kustomization = loaded.find(({ file }) => file === "kustomization.yaml")!.manifest;
const applied = loaded.filter(({ file }) => (kustomization.resources as string[]).includes(file));
const manifests = loaded.filter(({ file }) => file !== "kustomization.yaml");
const one = (kind: string, name?: string) => {
  const found = applied.filter(
    ({ manifest }) => manifest.kind === kind && (name === undefined || manifest.metadata.name === name),
  );
  expect(found.map(({ manifest }) => `${kind}/${manifest.metadata.name}`)).toHaveLength(1);
  return found[0]!.manifest;
};

const deployment = one("Deployment");
const pod = deployment.spec.template.spec;
const container = pod.containers[0];
const config = one("ConfigMap", "sitewright-config");
type EnvVar = {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
};
const envVars = container.env as EnvVar[];
const fromSecret = envVars.filter((variable) => variable.valueFrom?.secretKeyRef);
const ENV_NAMES = new Set(Object.keys(envSchema.shape));
/** Names whose values are keys, passwords or URLs with credentials in them: only ever from the Secret. */
const SECRET_NAME = /SECRET|KEY|PASSWORD|^DATABASE_URL$|^SMTP_URL$/;

const STABLE_API_VERSIONS = [
  "v1",
  "apps/v1",
  "networking.k8s.io/v1",
  "rbac.authorization.k8s.io/v1",
  "policy/v1",
  "node.k8s.io/v1",
];

/** A Kubernetes quantity in bytes (memory) or cores (cpu): 256Mi, 6Gi, 100m, "2". */
function quantity(value: string | number): number {
  const match = /^(\d+(?:\.\d+)?)(m|Ki|Mi|Gi)?$/.exec(String(value));
  if (!match) throw new Error(`not a quantity this test reads: ${value}`);
  const scale = { m: 1e-3, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30 }[match[2] ?? ""] ?? 1;
  return Number(match[1]) * scale;
}

describe("the Kubernetes manifests", () => {
  it("parse, each with a kind, a name and a stable apiVersion", () => {
    expect(manifests.length).toBeGreaterThan(10);
    const unstable = manifests
      .filter(({ manifest }) => !STABLE_API_VERSIONS.includes(manifest.apiVersion) || !manifest.kind)
      .map(({ file, manifest }) => `${file}: ${manifest.apiVersion} ${manifest.kind}`);
    expect(unstable).toEqual([]);
    expect(manifests.filter(({ manifest }) => !manifest.metadata?.name)).toEqual([]);
  });

  it("are all in kustomization.yaml, except the examples and the Secret's template", () => {
    const expected = yamlFiles.filter((file) => file !== "kustomization.yaml" && !file.endsWith(".example.yaml"));
    expect([...kustomization.resources].sort()).toEqual(expected.sort());
    expect(kustomization.images).toEqual([expect.objectContaining({ name: container.image })]);
  });

  it("put everything the kustomization applies into the app's or the sandboxes' namespace, none cluster-wide but those", () => {
    const sandboxNamespace = envSchema.shape.SANDBOX_K8S_NAMESPACE.parse(undefined);
    const namespaces = applied.filter(({ manifest }) => manifest.kind === "Namespace").map(({ manifest }) => manifest);
    expect(namespaces.map((namespace) => namespace.metadata.name).sort()).toEqual(["sitewright", sandboxNamespace]);
    for (const namespace of namespaces)
      expect(namespace.metadata.labels?.["kubernetes.io/metadata.name"]).toBe(namespace.metadata.name);
    const elsewhere = applied
      .filter(({ manifest }) => manifest.kind !== "Namespace")
      .filter(({ manifest }) => !["sitewright", sandboxNamespace].includes(manifest.metadata.namespace ?? ""))
      .map(({ file, manifest }) => `${file}: ${manifest.kind}/${manifest.metadata.name}`);
    expect(elsewhere).toEqual([]);
  });
});

describe("the app's Deployment", () => {
  it("sets only settings lib/env.ts reads, each once, and so does its ConfigMap", () => {
    const names = [...envVars.map((variable) => variable.name), ...Object.keys(config.data)];
    expect(names.filter((name) => !ENV_NAMES.has(name))).toEqual([]);
    expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
    expect(container.envFrom).toEqual([{ configMapRef: { name: config.metadata.name } }]);
  });

  it("takes what production requires from the Secret (APP_URL from the ConfigMap), and no key from anywhere else", () => {
    const result = envSchema.safeParse({ NODE_ENV: "production" });
    const required = result.success ? [] : result.error.issues.map((issue) => String(issue.path[0]));
    expect(required.sort()).toEqual(["APP_URL", "DATABASE_URL", "ENCRYPTION_KEY", "SESSION_SECRET"]);
    for (const name of required.filter((name) => name !== "APP_URL")) {
      expect(fromSecret.find((variable) => variable.name === name)?.valueFrom?.secretKeyRef).toEqual({
        name: "sitewright",
        key: name,
      });
    }
    expect(config.data.APP_URL).toMatch(/^https:\/\//);
    const literalSecrets = [
      ...envVars.filter((variable) => !variable.valueFrom).map((variable) => variable.name),
      ...Object.keys(config.data),
    ].filter((name) => SECRET_NAME.test(name));
    expect(literalSecrets).toEqual([]);
    expect(fromSecret.map((variable) => variable.name).filter((name) => !SECRET_NAME.test(name))).toEqual([]);
  });

  it("reads from the Secret exactly the keys its template names", () => {
    const template = manifests.find(({ file }) => file === "secret.example.yaml")!.manifest;
    expect(template.metadata).toMatchObject({ name: "sitewright", namespace: deployment.metadata.namespace });
    expect(Object.keys(template.stringData).sort()).toEqual(
      fromSecret.map((variable) => variable.valueFrom!.secretKeyRef!.key).sort(),
    );
  });

  it("passes lib/env.ts's production checks with the Secret filled in, on the kubernetes driver", () => {
    const secrets: Record<string, string> = {
      DATABASE_URL: "postgres://sitewright:password@postgres.sitewright.svc:5432/sitewright",
      SESSION_SECRET: "a-session-secret-of-at-least-32-characters",
      ENCRYPTION_KEY: "ab".repeat(32),
    };
    const source = {
      ...config.data,
      ...Object.fromEntries(envVars.map((variable) => [variable.name, variable.value ?? secrets[variable.name]])),
    };
    const result = envSchema.safeParse(source);
    expect(result.error?.issues ?? []).toEqual([]);
    expect(result.data).toMatchObject({ NODE_ENV: "production", SANDBOX_DRIVER: "kubernetes" });
    expect(String(container.ports[0].containerPort)).toBe(source.PORT);
  });

  it("runs the app image as its unprivileged user, read-only, with no capabilities and bounded resources", () => {
    const buildScript = read("scripts/deploy/build-image.ts");
    const uid = Number(/APP_UID = (\d+)/.exec(buildScript)![1]);
    const repository = /IMAGE_REPOSITORY = "([^"]+)"/.exec(buildScript)![1];
    expect(container.image).toBe(repository);
    expect(deployment.spec.replicas).toBe(2);
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: uid,
      runAsGroup: uid,
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect(container.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: uid,
      privileged: false,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
    });
    for (const kind of ["requests", "limits"])
      expect(Object.keys(container.resources[kind]).sort()).toEqual(["cpu", "memory"]);
    // The image's writable places (assembleRootfs): with a read-only root, each needs a volume.
    const mounts = (container.volumeMounts as { mountPath: string }[]).map((mount) => mount.mountPath).sort();
    expect(mounts).toEqual(["/app/.next/cache", "/tmp", "/var/cache/sitewright"]);
    expect(buildScript).toContain('for (const dir of ["tmp", "var/cache/sitewright"])');
    expect(buildScript).toContain('path.join(app, ".next/cache")');
  });

  it("is ready when /health answers, and alive while it listens (a database outage restarts nothing)", () => {
    expect(container.readinessProbe.httpGet).toEqual({ path: "/health", port: "http" });
    expect(container.livenessProbe.tcpSocket).toEqual({ port: "http" });
    expect(container.ports).toEqual([expect.objectContaining({ name: "http" })]);
  });

  it("is reached through a LoadBalancer with no affinity and kept at one replica or more during drains", () => {
    const labels = deployment.spec.template.metadata.labels;
    const service = one("Service", "sitewright");
    expect(service.spec).toMatchObject({ type: "LoadBalancer", sessionAffinity: "None" });
    expect(service.spec.selector).toEqual(labels);
    expect(service.spec.ports[0].targetPort).toBe("http");
    const budget = one("PodDisruptionBudget");
    expect(budget.spec.selector.matchLabels).toEqual(labels);
    expect(budget.spec.minAvailable).toBeLessThan(deployment.spec.replicas);
    expect(deployment.spec.strategy.rollingUpdate).toEqual({ maxSurge: 1, maxUnavailable: 0 });
  });
});

describe("the sandbox namespace", () => {
  const sandboxNamespace = envSchema.shape.SANDBOX_K8S_NAMESPACE.parse(undefined);

  it("is the one SANDBOX_K8S_NAMESPACE defaults to, and the one the Deployment names", () => {
    expect(sandboxNamespace).toBe("sitewright-sandboxes");
    expect(envVars.find((variable) => variable.name === "SANDBOX_K8S_NAMESPACE")?.value).toBe(sandboxNamespace);
    for (const kind of ["Role", "RoleBinding", "NetworkPolicy", "ResourceQuota", "LimitRange"])
      expect(one(kind).metadata.namespace).toBe(sandboxNamespace);
  });

  it("lets the app's service account do exactly what sandbox-rbac.json lists, and nothing cluster-wide", () => {
    const role = one("Role");
    const granted = (role.rules as { apiGroups: string[]; resources: string[]; verbs: string[] }[]).flatMap((rule) =>
      rule.apiGroups.flatMap((apiGroup) =>
        rule.resources.map((resource) => ({ apiGroup, resource, verbs: [...rule.verbs].sort() })),
      ),
    );
    expect(granted).toEqual(rbac.rules.map((rule) => ({ ...rule, verbs: [...rule.verbs].sort() })));
    const binding = one("RoleBinding");
    expect(binding.roleRef).toEqual({ apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: role.metadata.name });
    expect(binding.subjects).toEqual([
      { kind: "ServiceAccount", name: pod.serviceAccountName, namespace: deployment.metadata.namespace },
    ]);
    expect(one("ServiceAccount", pod.serviceAccountName).metadata.namespace).toBe(deployment.metadata.namespace);
    expect(manifests.filter(({ manifest }) => /^Cluster/.test(manifest.kind))).toEqual([]);
  });

  it("gives the test cluster's app user the same rights in the sandbox namespace, so CI runs as production would", () => {
    const harness = parseAllDocuments(read("scripts/setup/kubernetes-sandboxes.yaml")).map(
      (document) => document.toJS() as Manifest,
    );
    const role = harness.find((manifest) => manifest.kind === "Role")!;
    const granted = (role.rules as { apiGroups: string[]; resources: string[]; verbs: string[] }[]).flatMap((rule) =>
      rule.apiGroups.flatMap((apiGroup) =>
        rule.resources.map((resource) => ({ apiGroup, resource, verbs: [...rule.verbs].sort() })),
      ),
    );
    const byResource = (a: { resource: string }, b: { resource: string }) => a.resource.localeCompare(b.resource);
    expect(granted.sort(byResource)).toEqual(
      rbac.rules.map((rule) => ({ ...rule, verbs: [...rule.verbs].sort() })).sort(byResource),
    );
  });

  it("denies all egress, and all ingress but the app's pods on the sandbox port", () => {
    const policy = one("NetworkPolicy", "default-deny");
    expect(read("lib/sandbox/image.ts")).toContain('"EXPOSE 8080"');
    expect(policy.spec).toEqual({
      podSelector: {},
      policyTypes: ["Ingress", "Egress"],
      ingress: [
        {
          from: [
            {
              namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": deployment.metadata.namespace } },
              podSelector: { matchLabels: { "app.kubernetes.io/name": "sitewright" } },
            },
          ],
          ports: [{ protocol: "TCP", port: 8080 }],
        },
      ],
      egress: [],
    });
    expect(deployment.spec.template.metadata.labels["app.kubernetes.io/name"]).toBe("sitewright");
  });

  it("holds the pool and the capacity at a sandbox's memory limit each, and lets no sandbox exceed it", () => {
    const limits = one("LimitRange").spec.limits[0];
    expect(quantity(limits.max.memory)).toBe(SANDBOX_LIMITS.memoryBytes);
    expect(quantity(limits.default.memory)).toBe(SANDBOX_LIMITS.memoryBytes);
    expect(quantity(limits.max.cpu)).toBe(SANDBOX_LIMITS.nanoCpus / 1e9);
    const hard = one("ResourceQuota").spec.hard;
    const pods = Number(hard.pods);
    expect(pods).toBeGreaterThanOrEqual(Number(config.data.SANDBOX_MAX) + Number(config.data.SANDBOX_POOL_SIZE));
    expect(quantity(hard["limits.memory"])).toBe(pods * SANDBOX_LIMITS.memoryBytes);
    expect(quantity(hard["requests.memory"])).toBe(pods * quantity(limits.defaultRequest.memory));
    expect(quantity(hard["limits.cpu"])).toBe(pods * quantity(limits.max.cpu));
    expect(quantity(hard["requests.cpu"])).toBeCloseTo(pods * quantity(limits.defaultRequest.cpu));
  });
});
