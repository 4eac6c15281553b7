/**
 * The test cluster itself (scripts/setup/kubernetes.sh, docs/kubernetes.md), as the sandbox driver will use it:
 * with the `sitewright` user's kubeconfig, the node is Ready, a sandbox pod hardened as our containers are runs the
 * sandbox image and answers from its pod address, and a pod can start no connection to the host (PostgreSQL, the
 * app's port) or to another pod. Runs only under vitest.kubernetes.config.ts, with KUBECONFIG and SANDBOX_IMAGE set.
 */
import { randomBytes } from "node:crypto";
import net from "node:net";
import { PassThrough } from "node:stream";
import * as k8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const NAMESPACE = "sitewright-sandboxes";
const image = process.env.SANDBOX_IMAGE ?? "";
const kubeconfigPath = process.env.KUBECONFIG ?? "";

function sandboxPod(name: string): k8s.V1Pod {
  return {
    metadata: { name, labels: { "app.kubernetes.io/part-of": "sitewright-harness-test" } },
    spec: {
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      activeDeadlineSeconds: 600,
      restartPolicy: "Never",
      securityContext: { runAsUser: 10001, runAsGroup: 10001, runAsNonRoot: true },
      containers: [
        {
          name: "wordpress",
          image,
          imagePullPolicy: "Never",
          ports: [{ containerPort: 8080 }],
          securityContext: {
            allowPrivilegeEscalation: false,
            privileged: false,
            readOnlyRootFilesystem: true,
            capabilities: { drop: ["ALL"] },
          },
          resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { cpu: "1", memory: "256Mi" } },
          volumeMounts: [
            { name: "data", mountPath: "/data" },
            { name: "tmp", mountPath: "/tmp" },
          ],
        },
      ],
      volumes: [
        { name: "data", emptyDir: { medium: "Memory", sizeLimit: "64Mi" } },
        { name: "tmp", emptyDir: { medium: "Memory", sizeLimit: "16Mi" } },
      ],
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Exec = { exitCode: number; stdout: string };

describe("the Kubernetes test cluster", () => {
  const kc = new k8s.KubeConfig();
  let core: k8s.CoreV1Api;
  const names = [0, 1].map(() => `harness-${randomBytes(4).toString("hex")}`);
  const pods: { name: string; ip: string; hostIP: string; answeredMs: number }[] = [];

  async function run(pod: string, command: string[]): Promise<Exec> {
    let stdout = "";
    const out = new PassThrough().on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    const status = await new Promise<k8s.V1Status>((resolve, reject) => {
      new k8s.Exec(kc).exec(NAMESPACE, pod, "wordpress", command, out, null, null, false, resolve).catch(reject);
    });
    const exitCode = status.status === "Success" ? 0 : Number(status.details?.causes?.[0]?.message ?? 1);
    return { exitCode, stdout };
  }

  /** Creates the pod and answers once its WordPress answers on the pod's address, with the time that took. */
  async function startSandbox(name: string) {
    const started = Date.now();
    await core.createNamespacedPod({ namespace: NAMESPACE, body: sandboxPod(name) });
    for (;;) {
      if (Date.now() - started > 90_000) throw new Error(`${name} did not answer within 90 s`);
      const pod = await core.readNamespacedPod({ name, namespace: NAMESPACE });
      const ip = pod.status?.podIP;
      if (pod.status?.phase === "Failed") throw new Error(`${name} failed: ${JSON.stringify(pod.status)}`);
      if (ip) {
        const answered = await fetch(`http://${ip}:8080/wp-json/`, { signal: AbortSignal.timeout(2000) }).catch(
          () => undefined,
        );
        if (answered?.ok) {
          pods.push({ name, ip, hostIP: pod.status?.hostIP ?? "", answeredMs: Date.now() - started });
          return;
        }
      }
      await sleep(100);
    }
  }

  beforeAll(async () => {
    if (!kubeconfigPath || !image) {
      throw new Error("KUBECONFIG and SANDBOX_IMAGE must be set (scripts/setup/kubernetes.sh prints the first)");
    }
    kc.loadFromFile(kubeconfigPath);
    core = kc.makeApiClient(k8s.CoreV1Api);
    for (const name of names) await startSandbox(name);
    console.log(`pod create -> WordPress answering: ${pods.map((pod) => `${pod.answeredMs} ms`).join(", ")}`);
  }, 240_000);

  afterAll(async () => {
    for (const name of names) {
      await core?.deleteNamespacedPod({ name, namespace: NAMESPACE, gracePeriodSeconds: 0 }).catch(() => undefined);
    }
  });

  it("has a Ready node, which the sitewright user may read", async () => {
    const nodes = await core.listNode();
    const ready = nodes.items.map((node) => node.status?.conditions?.find((c) => c.type === "Ready")?.status);
    expect(ready).toEqual(["True"]);
  });

  it("runs a sandbox pod hardened as our containers are, answering WordPress's REST index from its pod address", async () => {
    const [pod] = pods;
    const index = (await (await fetch(`http://${pod!.ip}:8080/wp-json/`)).json()) as { namespaces: string[] };
    expect(index.namespaces).toContain("sitewright/v1");

    const inside = await run(pod!.name, [
      "sh",
      "-c",
      "id -u; grep CapEff /proc/self/status; grep NoNewPrivs /proc/self/status; touch /srv/x 2>&1; " +
        "touch /data/x /tmp/x && echo writable; grep -E ' /(data|tmp) ' /proc/mounts | cut -d' ' -f2-4",
    ]);
    const lines = inside.stdout.split("\n");
    expect(lines[0]).toBe("10001");
    expect(lines[1]).toMatch(/^CapEff:\s+0+$/);
    expect(lines[2]).toMatch(/^NoNewPrivs:\s+1$/);
    expect(lines[3]).toMatch(/Read-only file system/);
    expect(lines[4]).toBe("writable");
    // Memory-backed and as small as their sizeLimit, as the Docker driver's tmpfs is.
    expect(lines[5]).toMatch(/^\/data tmpfs \S*size=65536k/);
    expect(lines[6]).toMatch(/^\/tmp tmpfs \S*size=16384k/);
  });

  it("lets a pod start no connection to the host's PostgreSQL or app port, or to another pod: each times out", async () => {
    // A listener on every host address, as the app listens: the host reaches it on the pod bridge's gateway.
    // The probes close their connections at once: a reset is expected, not an error.
    const app = net.createServer((socket) => socket.on("error", () => undefined).end("app\n"));
    await new Promise<void>((resolve) => app.listen(0, "0.0.0.0", resolve));
    const appPort = (app.address() as net.AddressInfo).port;
    try {
      const [from, other] = pods;
      const gateway = "10.244.7.1";
      await expect(connects(gateway, appPort)).resolves.toBe(true); // the host can; the pod must not
      await expect(connects(other!.ip, 8080)).resolves.toBe(true);

      const targets = [
        [gateway, 5432],
        [gateway, appPort],
        [from!.hostIP, 5432],
        [from!.hostIP, appPort],
        [other!.ip, 8080],
        [from!.ip, 8080], // its own server: the probe itself works
      ];
      const probe = await run(from!.name, [
        "php",
        "-r",
        `foreach (json_decode($argv[1]) as [$host, $port]) {
           $s = @fsockopen($host, $port, $errno, $error, 3);
           echo $s ? "connected" : "failed $errno $error", "\\n";
         }`,
        JSON.stringify(targets),
      ]);
      expect(probe.stdout.trim().split("\n")).toEqual([
        ...Array(5).fill("failed 110 Connection timed out"),
        "connected",
      ]);
    } finally {
      app.close();
    }
  });
});

/** Whether the host can open a TCP connection to host:port within 3 s. */
function connects(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 3000 });
    const done = (connected: boolean) => {
      socket.destroy();
      resolve(connected);
    };
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
    socket.once("timeout", () => done(false));
  });
}
