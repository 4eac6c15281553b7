/**
 * Sandboxes against the real engine (Podman through its Docker API) and real PostgreSQL: pool and cold starts,
 * a vanished pool member replaced, the signed client inside a sandbox, capacity, GC of expired and orphaned
 * containers and in-memory deployments' identities, hardening, the network over IPv4 and IPv6, the GC lease.
 */
import { execFileSync, spawn } from "node:child_process";
import { randomInt, randomUUID } from "node:crypto";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { advanceClockForTests } from "@/lib/clock";
import {
  countSandboxes,
  findSandboxById,
  insertUser,
  findDeploymentSetting,
  listNetworkChecks,
  listSandboxes,
  recordNetworkCheck,
  setDeploymentSetting,
  takeSandboxLease,
  updateSandbox,
} from "@/lib/db/queries";
import { setDatabaseForTests } from "@/lib/db";
import { createTestDatabase, useTestDatabase } from "@/lib/db/testing";
import { AppError } from "@/lib/errors";
import { createSiteClient } from "@/lib/sites/client";
import { SiteRequestError } from "@/lib/sites/client";
import { forgetProcessStateForTests } from "@/lib/process-state";
import { MEMORY_DEPLOYMENT, namespaceFor, sandboxConfig } from "./config";
import { IMAGE_SETTING } from "./deployment-image";
import { DockerDriver } from "./docker-driver";
import {
  type ContainerSpec,
  dockerOptionsFrom,
  LABEL_EXPIRES,
  LABEL_NAMESPACE,
  LABEL_OWNER,
  LABEL_SANDBOX,
  NETWORK_PREFIX,
  SANDBOX_LIMITS,
  SandboxEngine,
} from "./engine";
import { collectGarbage, GC_LEASE } from "./gc";
import { POOL_LEASE } from "./pool";
import { openPreview } from "./preview";
import { createTestSandboxes, type TestSandboxes } from "./testing";

const database = useTestDatabase();

/** The capabilities engines grant by default: every one of them must be dropped. */
const DEFAULT_CAPABILITIES = [
  "AUDIT_WRITE",
  "CHOWN",
  "DAC_OVERRIDE",
  "FOWNER",
  "FSETID",
  "KILL",
  "MKNOD",
  "NET_BIND_SERVICE",
  "NET_RAW",
  "SETFCAP",
  "SETGID",
  "SETPCAP",
  "SETUID",
  "SYS_CHROOT",
];

let userCount = 0;
async function newUserId() {
  const id = `user-${randomUUID()}`;
  await insertUser({
    id,
    email: `sandbox${userCount++}-${id}@example.com`,
    name: null,
    passwordHash: "unused",
    createdAt: new Date(),
  });
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
    const sandbox = await t.manager.createSandbox({ userId });
    const elapsed = performance.now() - started;

    expect(sandbox.fromPool).toBe(true);
    expect(sandbox.status).toBe("ready");
    // The bench measures the acquire (ms); here it only has to be clearly not a cold start (seconds).
    expect(elapsed).toBeLessThan(3000);
    expect(sandbox.previewUrl).toBe(`${t.config.appUrl}/preview/${sandbox.id}/`);
    const index = await fetch(`${await t.directUrl(sandbox.id)}/wp-json/`);
    expect(index.status).toBe(200);
    expect((await index.json()).namespaces).toContain("sitewright/v1");

    await waitFor(async () => (await countSandboxes({ statuses: ["pooled"] })) === 2);
  });
});

describe("a pool member that vanished", () => {
  let t: TestSandboxes;
  /** The container whose next inspect finds it being removed, as a process's GC removing it right then would. */
  let vanishing: string | undefined;
  beforeAll(async () => {
    const { dockerHost, networkPool } = sandboxConfig();
    const docker = new Docker({ ...dockerOptionsFrom(dockerHost), timeout: 60_000 });
    const getContainer = docker.getContainer.bind(docker);
    docker.getContainer = (id: string) => {
      const container = getContainer(id);
      if (id !== vanishing) return container;
      vanishing = undefined;
      return Object.assign(container, {
        inspect: async () => {
          await getContainer(id).remove({ force: true });
          // What Podman answers for a container while its removal is under way (measured on Podman 4.3).
          throw Object.assign(
            new Error(`(HTTP code 500) server error - container ${id} does not exist in database: no such container`),
            { statusCode: 500, json: { cause: "no such container", response: 500 } },
          );
        },
      });
    };
    t = createTestSandboxes({ poolSize: 2 }, { engine: new SandboxEngine({ docker, networkPool }) });
    await t.manager.image();
  });
  afterAll(() => t.cleanup());

  it("is replaced within the same request, whether it is long gone or going as it is claimed", async () => {
    await t.manager.fillPool();
    const members = (await listSandboxes())
      .filter((row) => row.status === "pooled")
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    expect(members.length).toBe(2);
    // The first (claimed first) was removed behind the manager's back; the second goes while it is being claimed.
    await t.engine.docker.getContainer(members[0]!.containerId!).remove({ force: true });
    vanishing = members[1]!.containerId!;

    const sandbox = await t.manager.createSandbox({ userId: await newUserId() });
    expect(sandbox.status).toBe("ready");
    expect(members.map((m) => m.id)).not.toContain(sandbox.id);
    const index = await fetch(`${await t.directUrl(sandbox.id)}/wp-json/`);
    expect(index.status).toBe(200);
    for (const member of members) expect(await findSandboxById({ id: member.id })).toBeUndefined();
    expect(vanishing).toBeUndefined();
    // Their networks went with them, though their containers were already gone.
    const networks = (await t.engine.docker.listNetworks()).map((n) => n.Name);
    for (const member of members) expect(networks).not.toContain(`${NETWORK_PREFIX}${member.id}`);
  }, 60_000);
});

describe("a sandbox started cold", () => {
  let t: TestSandboxes;
  let userId: string;
  let sandbox: Awaited<ReturnType<TestSandboxes["manager"]["createSandbox"]>>;
  let direct: string;
  beforeAll(async () => {
    t = createTestSandboxes({ poolSize: 0 });
    await t.manager.image();
    userId = await newUserId();
    sandbox = await t.manager.createSandbox({ userId, ttlMinutes: 30 });
    direct = await t.directUrl(sandbox.id);
  });
  afterAll(() => t.cleanup());

  it("starts cold when the pool is empty and answers WordPress REST", async () => {
    expect(sandbox.fromPool).toBe(false);
    expect(sandbox.url).toBe(`${t.config.appUrl}/preview/${sandbox.id}/`);
    expect(direct).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const pages = await fetch(`${direct}/wp-json/wp/v2/pages`);
    expect(pages.status).toBe(200);
    expect(Array.isArray(await pages.json())).toBe(true);
    expect(new Date(sandbox.expiresAt).getTime() - new Date(sandbox.createdAt).getTime()).toBe(30 * 60_000);
  });

  it("has the plugin connected, so the signed client works against it as against a live site", async () => {
    const client = await t.clientFor(sandbox.id);
    const info = await client.get<{ name: string; wordpress: string }>("/sitewright/v1/info");
    expect(info.data.wordpress).toMatch(/^6\.1/);

    const created = await client.post<{ id: number; status: string }>("/wp/v2/pages", {
      title: "Made by the agent",
      status: "publish",
      content: "<p>Hello</p>",
    });
    expect(created.status).toBe(201);
    const read = await client.get<{ title: { rendered: string } }>(`/wp/v2/pages/${created.data.id}`);
    expect(read.data.title.rendered).toBe("Made by the agent");

    // The same request with wrong credentials is refused by the plugin: the connection is really checked.
    const forged = createSiteClient(
      { baseUrl: direct, restUrl: `${direct}/wp-json/`, token: "swt_forged", secret: "not-the-secret" },
      { allowHttp: true, allowlist: ["127.0.0.1"] },
    );
    const refused = await forged.post("/wp/v2/pages", { title: "nope" }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SiteRequestError);
    expect((refused as SiteRequestError).siteStatus).toBe(401);
  });

  it("gave its credentials out once: the provisioning route refuses anyone else", async () => {
    for (const token of ["0".repeat(64), ""]) {
      const response = await fetch(`${direct}/wp-json/sitewright-sandbox/v1/provision`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-sitewright-provision": token },
        body: JSON.stringify({ scopes: ["site:read"] }),
      });
      expect([401, 403]).toContain(response.status);
      expect(await response.text()).not.toMatch(/"secret"/);
    }
  });

  it("returns its manifest with the image tag and its times", async () => {
    const view = await t.manager.getSandbox({ userId, id: sandbox.id });
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
    const bindings = Object.values(info.NetworkSettings.Ports ?? {})
      .flat()
      .filter(Boolean);
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
    const socket = await t.engine.exec(row!.containerId!, [
      "sh",
      "-c",
      "test -e /run/podman/podman.sock || test -e /var/run/docker.sock; echo $?",
    ]);
    expect(socket.stdout.trim()).toBe("1");
  });

  it("gives another user's sandbox as not found", async () => {
    const stranger = await newUserId();
    await expectAppError(t.manager.getSandbox({ userId: stranger, id: sandbox.id }), "not_found", 404);
    await expectAppError(t.manager.deleteSandbox({ userId: stranger, id: sandbox.id }), "not_found", 404);
    expect(await findSandboxById({ id: sandbox.id })).toBeDefined();
  });

  it("signs its owner into wp-admin with a link that works once, inside the preview", async () => {
    const login = await t.manager.createLoginLink({ userId, id: sandbox.id });
    expect(login.url.startsWith(`${sandbox.previewUrl}?sitewright_login=`)).toBe(true);
    const through = (url: string, cookie?: string) => {
      const target = new URL(url);
      return openPreview({
        request: new Request(url, { headers: cookie ? { cookie } : {}, redirect: "manual" }),
        session: { userId, idHash: "the-owner's-session" },
        sandboxId: sandbox.id,
        path: target.pathname.slice(`/preview/${sandbox.id}`.length),
        search: target.search,
        sessionSecret: "s".repeat(32),
        sandboxes: t.manager,
      });
    };
    const first = await through(login.url);
    expect(first.status).toBe(302);
    expect(first.headers.get("location")).toBe(`${sandbox.previewUrl}wp-admin/`);
    const wpCookies = first.headers.getSetCookie().filter((c) => c.startsWith("wordpress"));
    expect(wpCookies.join("\n")).toMatch(/wordpress_logged_in_/);
    for (const cookie of wpCookies) expect(cookie).toMatch(new RegExp(`Path=/preview/${sandbox.id}/`));
    const admin = await through(`${sandbox.previewUrl}wp-admin/`, wpCookies.map((c) => c.split(";")[0]).join("; "));
    expect(admin.status).toBe(200);
    const html = await admin.text();
    expect(html).toContain("Dashboard");
    expect(html).toContain("Sitewright sandbox");
    expect(html).not.toMatch(/127\.0\.0\.1:\d+/);
    expect((await through(login.url)).status).toBe(403);
  });

  it("removes the sandbox and its container when the owner deletes it", async () => {
    const row = await findSandboxById({ id: sandbox.id });
    await t.manager.deleteSandbox({ userId, id: sandbox.id });
    expect(await findSandboxById({ id: sandbox.id })).toBeUndefined();
    expect(await t.engine.inspect(row!.containerId!)).toBeUndefined();
    await expectAppError(t.manager.getSandbox({ userId, id: sandbox.id }), "not_found", 404);
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
    const first = await t.manager.createSandbox({ userId });
    const [a, b] = await Promise.allSettled([
      t.manager.createSandbox({ userId }),
      t.manager.createSandbox({ userId: otherUserId }),
    ]);
    for (const outcome of [a, b]) {
      expect(outcome.status).toBe("rejected");
      const error = (outcome as PromiseRejectedResult).reason as AppError;
      expect(error.code).toBe("capacity_reached");
      expect(error.status).toBe(429);
    }
    await t.manager.deleteSandbox({ userId, id: first.id });
    const again = await t.manager.createSandbox({ userId });
    expect(again.status).toBe("ready");
  });

  it("refuses a lifetime longer than SANDBOX_TTL_MINUTES", async () => {
    await expectAppError(
      t.manager.createSandbox({ userId: await newUserId(), ttlMinutes: t.config.ttlMinutes + 1 }),
      "invalid_input",
      400,
    );
  });
});

describe("each user's share", () => {
  let t: TestSandboxes;
  beforeAll(async () => {
    t = createTestSandboxes({ poolSize: 0, max: 10, maxPerUser: 2 });
    await t.manager.image();
  });
  afterAll(() => t.cleanup());

  it("refuses a user beyond SANDBOX_MAX_PER_USER, even asking at once, while another user still gets one", async () => {
    const greedy = await newUserId();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 4 }, () => t.manager.createSandbox({ userId: greedy })),
    );
    const made = outcomes.filter((o) => o.status === "fulfilled");
    expect(made.length).toBe(2);
    for (const outcome of outcomes.filter((o) => o.status === "rejected")) {
      const error = (outcome as PromiseRejectedResult).reason as AppError;
      expect(error.code).toBe("capacity_reached");
      expect(error.status).toBe(429);
      expect(error.headers?.["Retry-After"]).toMatch(/^\d+$/);
      expect(error.details).toMatchObject({ maxPerUser: 2 });
    }
    expect((await listSandboxes()).filter((row) => row.userId === greedy).length).toBe(2);

    const other = await t.manager.createSandbox({ userId: await newUserId() });
    expect(other.status).toBe("ready");

    // Closing one gives the share back.
    await t.manager.deleteSandbox({ userId: greedy, id: (made[0] as PromiseFulfilledResult<{ id: string }>).value.id });
    expect((await t.manager.createSandbox({ userId: greedy })).status).toBe("ready");
  }, 60_000);
});

/**
 * TCP connects from inside the sandbox's container (PHP, as WordPress would), one second each: for every
 * `host:port`, "open" or "closed: <why>".
 */
async function connectFromInside(t: TestSandboxes, sandboxId: string, targets: string[]) {
  const row = await findSandboxById({ id: sandboxId });
  const probe = await t.engine.exec(row!.containerId!, [
    "php",
    "-r",
    `foreach (array_slice($argv, 1) as $target) {
      [$host, $port] = explode(" ", $target);
      $s = @fsockopen($host, (int) $port, $code, $message, 1);
      echo $target, " ", $s ? "open" : "closed: $message", "\n";
    }`,
    ...targets,
  ]);
  expect(probe.exitCode, probe.stderr).toBe(0);
  return Object.fromEntries(
    probe.stdout
      .trim()
      .split("\n")
      .map((line) => {
        const [host, port, ...rest] = line.split(" ");
        return [`${host} ${port}`, rest.join(" ")];
      }),
  );
}

/** The container's address and its network's gateway (the host's side of the bridge), as the engine reports. */
async function addressesOf(t: TestSandboxes, sandboxId: string) {
  const row = await findSandboxById({ id: sandboxId });
  const info = (await t.engine.inspect(row!.containerId!))!;
  const networks = Object.values(info.NetworkSettings.Networks ?? {});
  expect(networks.length).toBe(1);
  return { ip: networks[0]!.IPAddress, gateway: networks[0]!.Gateway };
}

/**
 * The host's side of the bridge that holds `gateway`: its interface and link-local IPv6 address (the bridge gets
 * one a moment after its first port comes up).
 */
async function hostLinkLocal(gateway: string) {
  let found: { address: string; device: string } | undefined;
  await waitFor(async () => {
    for (const [device, addresses] of Object.entries(os.networkInterfaces())) {
      if (!addresses?.some((a) => a.family === "IPv4" && a.address === gateway)) continue;
      const linkLocal = addresses.find((a) => a.family === "IPv6" && /^fe80:/i.test(a.address));
      if (linkLocal) found = { address: linkLocal.address.split("%")[0]!, device };
    }
    return found !== undefined;
  }, 10_000);
  return found!;
}

/** Whether this host reaches `host:port` (a control: what the sandbox must not reach is really there). */
function hostReaches(host: string, port: number) {
  return new Promise<boolean>((resolve) => {
    const socket = net.connect({ host, port, timeout: 3000 }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on("timeout", () => {
      socket.destroy();
      resolve(false);
    });
    socket.on("error", () => resolve(false));
  });
}

/**
 * A stand-in for the internet: a network namespace behind a veth pair, on a /30 of TEST-NET-1 (192.0.2.0/24,
 * never routed), with a TCP listener; the host routes to it, so a sandbox's packets to it would be forwarded.
 */
function farNetwork() {
  const tag = randomUUID().replace(/-/g, "").slice(0, 6);
  const [namespace, hostSide, farSide] = [`swfar-${tag}`, `swfa${tag}`, `swfb${tag}`];
  const base = randomInt(64) * 4;
  const [hostAddress, address] = [`192.0.2.${base + 1}`, `192.0.2.${base + 2}`];
  const ip = (...args: string[]) => execFileSync("ip", args, { stdio: "pipe" });
  ip("netns", "add", namespace);
  ip("link", "add", hostSide, "type", "veth", "peer", "name", farSide);
  ip("link", "set", farSide, "netns", namespace);
  ip("addr", "add", `${hostAddress}/30`, "dev", hostSide);
  ip("link", "set", hostSide, "up");
  ip("netns", "exec", namespace, "ip", "addr", "add", `${address}/30`, "dev", farSide);
  ip("netns", "exec", namespace, "ip", "link", "set", farSide, "up");
  ip("netns", "exec", namespace, "ip", "route", "add", "default", "via", hostAddress);
  const port = 8000 + randomInt(1000);
  const listener = spawn(
    "ip",
    [
      "netns",
      "exec",
      namespace,
      process.execPath,
      "-e",
      `require("net").createServer((s) => s.end("far")).listen(${port})`,
    ],
    { stdio: "ignore" },
  );
  return {
    address,
    port,
    close() {
      listener.kill();
      execFileSync("ip", ["netns", "del", namespace], { stdio: "ignore" });
      execFileSync("sh", ["-c", `ip link del ${hostSide} 2>/dev/null || true`]);
    },
  };
}

/** An engine that starts sandboxes as they were before IPv6 was closed: IPv6 on inside, a bridge no rule names. */
class EngineLeavingIpv6Open extends SandboxEngine {
  override containerOptions(spec: ContainerSpec, network?: string) {
    const options = super.containerOptions(spec, network);
    delete options.HostConfig?.Sysctls;
    return options;
  }

  override networkOptions(spec: ContainerSpec, range: { subnet: string; gateway: string }) {
    const { Options: _bridgeName, ...options } = super.networkOptions(spec, range);
    return options;
  }
}

describe("the sandbox network", () => {
  let t: TestSandboxes;
  let first: { id: string; url: string | null };
  let second: { id: string; url: string | null };
  let hostService: net.Server;
  let hostPort: number;
  beforeAll(async () => {
    t = createTestSandboxes({ poolSize: 0 });
    await t.manager.image();
    const userId = await newUserId();
    [first, second] = await Promise.all([t.manager.createSandbox({ userId }), t.manager.createSandbox({ userId })]);
    // A service of the host listening on every interface, like the app on its port.
    hostService = net.createServer((socket) => {
      socket.on("error", () => {});
      socket.end("hello from the host\n");
    });
    // On `::`, as Node (the app) listens: both address families.
    await new Promise<void>((resolve) => hostService.listen(0, "::", resolve));
    hostPort = (hostService.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => hostService?.close(resolve));
    await t.cleanup();
  });

  it("keeps the host's services out of reach from inside: not through the gateway, not at the host's address", async () => {
    const { gateway } = await addressesOf(t, first.id);
    expect(gateway).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    // The control: the host service answers the host itself on that address.
    const local = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host: gateway, port: hostPort, timeout: 3000 }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on("timeout", () => {
        socket.destroy();
        resolve(false);
      });
      socket.on("error", () => resolve(false));
    });
    expect(local).toBe(true);
    // The host's own addresses other than the gateway (eth0 and the engine's default bridge, say).
    const hostAddresses = Object.values(os.networkInterfaces())
      .flat()
      .filter((a) => a && a.family === "IPv4" && !a.internal && a.address !== gateway)
      .map((a) => a!.address)
      .filter((address) => !address.startsWith("10.213."))
      .slice(0, 4);
    const targets = [`${gateway} ${hostPort}`, `${gateway} 5432`, ...hostAddresses.map((a) => `${a} ${hostPort}`)];
    const results = await connectFromInside(t, first.id, targets);
    for (const target of targets) expect(results[target], target).toMatch(/^closed/);
  }, 60_000);

  it("keeps the host's services out of reach over IPv6: not at the gateway's link-local address", async () => {
    const { gateway } = await addressesOf(t, first.id);
    const linkLocal = await hostLinkLocal(gateway);
    // The control: the host service answers the host itself on the bridge's fe80:: address.
    await waitFor(() => hostReaches(`${linkLocal.address}%${linkLocal.device}`, hostPort), 10_000);
    const targets = [`[${linkLocal.address}%eth0] ${hostPort}`, `[${linkLocal.address}%eth0] 5432`];
    const results = await connectFromInside(t, first.id, targets);
    for (const target of targets) {
      expect(results[target], target).toMatch(/^closed/);
      // Refused would mean the packet reached the host.
      expect(results[target], target).not.toMatch(/refused/i);
    }
    // IPv6 is off inside: the sandbox has no address of that family at all.
    const row = await findSandboxById({ id: first.id });
    const addresses = await t.engine.exec(row!.containerId!, ["cat", "/proc/net/if_inet6"]);
    expect(addresses.stdout.trim()).toBe("");
  }, 60_000);

  it("keeps addresses beyond the host out of reach: nothing a sandbox sends is forwarded", async () => {
    const far = farNetwork();
    try {
      // The control: the host reaches it (the route is there; a sandbox's packets would be forwarded along it).
      await waitFor(() => hostReaches(far.address, far.port), 10_000);
      const target = `${far.address} ${far.port}`;
      const result = (await connectFromInside(t, first.id, [target]))[target];
      expect(result).toMatch(/^closed/);
      expect(result).not.toMatch(/refused/i);
    } finally {
      far.close();
    }
  }, 60_000);

  it("keeps other sandboxes out of reach from inside", async () => {
    const one = await addressesOf(t, first.id);
    const other = await addressesOf(t, second.id);
    expect(one.ip).not.toBe(other.ip);
    expect((await connectFromInside(t, first.id, [`${other.ip} 8080`]))[`${other.ip} 8080`]).toMatch(/^closed/);
    expect((await connectFromInside(t, second.id, [`${one.ip} 8080`]))[`${one.ip} 8080`]).toMatch(/^closed/);
  });

  it("checks its own isolation from inside, and finds it", async () => {
    const row = await findSandboxById({ id: first.id });
    const check = await t.manager.fleet.checkIsolation(row!.containerId!);
    expect(check, JSON.stringify(check)).toMatchObject({ isolated: true });
    expect(await t.manager.networkState()).toBe("isolated");
  });

  it("refuses sandboxes on a range the firewall does not cover, says why, and leaves no container behind", async () => {
    const uncovered = createTestSandboxes({ poolSize: 0, networkPool: "10.214.0.0/16" });
    try {
      expect(await uncovered.manager.networkState()).toBe("unchecked");
      const refused = await uncovered.manager.createSandbox({ userId: await newUserId() }).catch((e: unknown) => e);
      expect(refused).toMatchObject({ code: "sandbox_unavailable", headers: { "Retry-After": "60" } });
      expect(String((refused as Error).message)).toContain("scripts/setup/sandbox-network.sh");
      expect(await uncovered.manager.networkState()).toBe("not_isolated");
      expect(await uncovered.engine.list(uncovered.namespace)).toEqual([]);
      // Asked again (the operator may have installed the rules since), it checks again, and still refuses.
      await expect(uncovered.manager.createSandbox({ userId: await newUserId() })).rejects.toMatchObject({
        code: "sandbox_unavailable",
      });
    } finally {
      await uncovered.cleanup();
    }
  }, 60_000);

  it("finds a sandbox on a range the firewall does not cover not isolated, and runs it only when told to", async () => {
    const uncovered = createTestSandboxes({ poolSize: 0, networkPool: "10.214.0.0/16", requireIsolation: false });
    try {
      const sandbox = await uncovered.manager.createSandbox({ userId: await newUserId() });
      const row = await findSandboxById({ id: sandbox.id });
      const check = await uncovered.manager.fleet.checkIsolation(row!.containerId!);
      expect(check, JSON.stringify(check)).toMatchObject({ isolated: false });
      expect(await uncovered.manager.networkState()).toBe("not_isolated");
    } finally {
      await uncovered.cleanup();
    }
  });

  it("refuses sandboxes whose IPv6 is open, and reports the network not isolated", async () => {
    const { dockerHost, networkPool } = sandboxConfig();
    const open = createTestSandboxes(
      { poolSize: 0 },
      { engine: new EngineLeavingIpv6Open({ dockerHost, networkPool }) },
    );
    try {
      const refused = await open.manager.createSandbox({ userId: await newUserId() }).catch((e: unknown) => e);
      expect(refused).toMatchObject({ code: "sandbox_unavailable", headers: { "Retry-After": "60" } });
      expect(String((refused as Error).message)).toContain("scripts/setup/sandbox-network.sh");
      // What /health reports as sandboxPool.network.
      expect(await open.manager.networkState()).toBe("not_isolated");
      expect(await open.engine.list(open.namespace)).toEqual([]);
    } finally {
      await open.cleanup();
    }
  }, 60_000);

  it("finds a sandbox whose IPv6 is open not isolated, though IPv4 is closed, and it really reaches the host", async () => {
    const { dockerHost, networkPool } = sandboxConfig();
    const open = createTestSandboxes(
      { poolSize: 0, requireIsolation: false },
      { engine: new EngineLeavingIpv6Open({ dockerHost, networkPool }) },
    );
    try {
      const sandbox = await open.manager.createSandbox({ userId: await newUserId() });
      expect(await open.manager.networkState()).toBe("not_isolated");
      const row = await findSandboxById({ id: sandbox.id });
      const check = await open.manager.fleet.checkIsolation(row!.containerId!);
      expect(check, JSON.stringify(check)).toMatchObject({ isolated: false });
      // IPv4 alone would have passed: every IPv4 probe timed out; an IPv6 one got through.
      expect(check.outcome).toContain(`${check.gateway} 9 closed 110`);
      expect(check.outcome).toMatch(/fe80::[0-9a-f:]+%eth0 \d+ (open|closed 111)/);
      // The control for the test above: without the guard, the host's service answers at fe80::.
      const linkLocal = await hostLinkLocal(check.gateway!);
      const target = `[${linkLocal.address}%eth0] ${hostPort}`;
      expect((await connectFromInside(open, sandbox.id, [target]))[target]).toBe("open");
    } finally {
      await open.cleanup();
    }
  }, 60_000);

  it("still answers the service on its port published on 127.0.0.1", async () => {
    for (const sandbox of [first, second]) {
      const index = await fetch(`${await t.directUrl(sandbox.id)}/wp-json/`);
      expect(index.status).toBe(200);
    }
    // And a sandbox answers itself: its own WordPress works from inside.
    expect((await connectFromInside(t, first.id, ["127.0.0.1 8080"]))["127.0.0.1 8080"]).toBe("open");
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
    const short = await t.manager.createSandbox({ userId, ttlMinutes: 5 });
    const long = await t.manager.createSandbox({ userId, ttlMinutes: 60 });
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
    const used = await t.manager.createSandbox({ userId, ttlMinutes: 60 });
    const idle = await t.manager.createSandbox({ userId, ttlMinutes: 60 });
    advanceClockForTests((t.config.idleMinutes - 1) * 60_000);
    await t.manager.getSandbox({ userId, id: used.id });
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
    const orphanId = randomUUID();
    const foreignId = randomUUID();
    const orphan = await t.engine.run({
      sandboxId: orphanId,
      image,
      namespace: t.namespace,
      owner: "crashed",
      expiresAt,
    });
    const foreign = await t.engine.run({
      sandboxId: foreignId,
      image,
      namespace: other.namespace,
      owner: "someone",
      expiresAt,
    });

    const report = await collectGarbage(t.manager, { now: new Date(Date.now() + 3600_000) });
    expect(report.orphans.length).toBe(1);
    expect(await t.engine.inspect(orphan.containerId)).toBeUndefined();
    // Its own network went with it; the other deployment's sandbox keeps its network.
    const networks = (await t.engine.docker.listNetworks()).map((n) => n.Name);
    expect(networks).not.toContain(`${NETWORK_PREFIX}${orphanId}`);
    expect(networks).toContain(`${NETWORK_PREFIX}${foreignId}`);
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
    expect(
      await takeSandboxLease({
        name: GC_LEASE,
        holder: other.manager.holder,
        now: later,
        until: new Date(later.getTime() + 1000),
      }),
    ).toBe(true);
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

describe("in-memory deployments on one engine", () => {
  /** Removes what a manager with an identity of its own made (its records go with the file's database). */
  async function removeContainersOf(t: TestSandboxes) {
    await t.manager.close();
    for (const container of await t.engine.list(t.config.namespace)) await t.engine.remove(container.containerId);
  }

  /** A GC run as another in-memory process would make it: its own identity, its own (empty) store. */
  async function collectAsAnotherProcess(namespace: string, options: { now?: Date } = {}) {
    const store = await createTestDatabase();
    const other = createTestSandboxes({ poolSize: 0, namespace });
    await setDatabaseForTests(store.handle);
    try {
      return await collectGarbage(other.manager, options);
    } finally {
      await setDatabaseForTests(database.current().handle);
      await other.cleanup();
      await store.drop();
    }
  }

  it("gives each in-memory process an identity of its own, and one's GC leaves the other's pool alone", async () => {
    const firstIdentity = sandboxConfig().namespace;
    forgetProcessStateForTests(MEMORY_DEPLOYMENT); // what a second process starts with
    const secondIdentity = sandboxConfig().namespace;
    const first = createTestSandboxes({ poolSize: 1, namespace: firstIdentity });
    try {
      await first.manager.image();
      await first.manager.fillPool();
      const [member] = (await listSandboxes()).filter((row) => row.status === "pooled");

      const report = await collectAsAnotherProcess(secondIdentity);
      expect(report.skipped).toBe(false);
      expect(report.orphans).not.toContain(member!.id);
      expect((await first.engine.inspect(member!.containerId!))?.State.Running).toBe(true);
      expect(report.abandoned).not.toContain(member!.id);
      const sandbox = await first.manager.createSandbox({ userId: await newUserId() });
      expect(sandbox).toMatchObject({ id: member!.id, fromPool: true });

      expect(firstIdentity).toMatch(/^memory-[0-9a-f]{12}$/);
      expect(secondIdentity).toMatch(/^memory-[0-9a-f]{12}$/);
      expect(secondIdentity).not.toBe(firstIdentity);
      // Within one process the identity stays the same.
      expect(sandboxConfig().namespace).toBe(secondIdentity);
    } finally {
      await removeContainersOf(first);
      await first.cleanup();
    }
  }, 60_000);

  it("removes another in-memory deployment's containers only once past their expiry and the grace", async () => {
    // A PostgreSQL deployment keeps one stable identity, shared by its instances (the password is not part of it).
    const postgres = "postgres://app:secret@db.internal:5432/sitewright";
    expect(namespaceFor(postgres)).toBe(namespaceFor(postgres.replace("secret", "rotated")));
    expect(namespaceFor(postgres)).toMatch(/^[0-9a-f]{12}$/);

    const gone = createTestSandboxes({ namespace: `memory-${randomUUID().replace(/-/g, "").slice(0, 12)}` });
    try {
      const image = await gone.manager.image();
      const graceMs = (gone.config.ttlMinutes + 10) * 60_000;
      const now = new Date();
      const [expired, recent] = [randomUUID(), randomUUID()];
      const expiredRun = await gone.engine.run({
        sandboxId: expired,
        image,
        namespace: gone.config.namespace,
        owner: "pool",
        expiresAt: new Date(now.getTime() - graceMs - 60_000),
      });
      const recentRun = await gone.engine.run({
        sandboxId: recent,
        image,
        namespace: gone.config.namespace,
        owner: "pool",
        expiresAt: new Date(now.getTime() - 60_000),
      });

      const report = await collectAsAnotherProcess(sandboxConfig().namespace, { now });
      expect(await gone.engine.inspect(expiredRun.containerId)).toBeUndefined();
      expect((await gone.engine.inspect(recentRun.containerId))?.State.Running).toBe(true);
      expect(report.abandoned).toContain(expired);
      expect(report.abandoned).not.toContain(recent);
    } finally {
      await removeContainersOf(gone);
      await gone.cleanup();
    }
  }, 60_000);
});

/** A docker driver that counts the sandboxes it starts and the network probes it runs inside them. */
function countingDriver() {
  const driver = new DockerDriver(sandboxConfig());
  const started: string[] = [];
  const probes: string[] = [];
  const start = driver.start.bind(driver);
  const exec = driver.exec.bind(driver);
  driver.start = async (spec) => {
    started.push(spec.sandboxId);
    return start(spec);
  };
  driver.exec = async (handle, cmd, options) => {
    if (cmd[0] === "php" && cmd[1] === "-r" && cmd[2]?.includes("stream_socket_client")) probes.push(handle);
    return exec(handle, cmd, options);
  };
  return { driver, started, probes };
}

describe("app instances on one database", () => {
  const namespace = `test-shared-${randomUUID().slice(0, 8)}`;
  let a: TestSandboxes;
  let b: TestSandboxes;
  let aStarted: string[];
  let bStarted: string[];
  beforeAll(async () => {
    const first = countingDriver();
    const second = countingDriver();
    aStarted = first.started;
    bStarted = second.started;
    a = createTestSandboxes({ poolSize: 2, namespace }, { driver: first.driver });
    b = createTestSandboxes({ poolSize: 2, namespace }, { driver: second.driver });
    await a.manager.image();
    // The pool is the database's: members other describe blocks left behind would count toward it.
    for (const row of await listSandboxes()) {
      if (row.status === "pooled" || row.status === "warming") await a.manager.fleet.destroy(row);
    }
  });
  afterAll(async () => {
    await a.cleanup();
    await b.cleanup();
  });

  it("share one pool: only the holder of the pool lease fills it, and the other hands its members out", async () => {
    await Promise.all([a.manager.fillPool(), b.manager.fillPool()]);
    const pooled = (await listSandboxes()).filter((row) => row.status === "pooled");
    expect(pooled.length).toBe(2);
    expect([aStarted.length, bStarted.length].sort()).toEqual([0, 2]);
    const [filler, other] = aStarted.length === 2 ? [a, b] : [b, a];
    for (const row of pooled) {
      expect(row).toMatchObject({ driver: "docker", node: os.hostname() });
      expect(row.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    }
    // While one instance holds the lease, the other's fill starts nothing, though the pool is short.
    await updateSandbox({ id: pooled[0]!.id, status: "removing" });
    const now = new Date();
    expect(
      await takeSandboxLease({ name: POOL_LEASE, holder: filler.manager.holder, now, until: new Date(+now + 60_000) }),
    ).toBe(true);
    const before = aStarted.length + bStarted.length;
    await other.manager.fillPool();
    expect(aStarted.length + bStarted.length).toBe(before);
    await updateSandbox({ id: pooled[0]!.id, status: "pooled" });
    // The other instance hands out a member the first one started.
    const sandbox = await other.manager.createSandbox({ userId: await newUserId() });
    expect(sandbox.fromPool).toBe(true);
    expect([...aStarted, ...bStarted]).toContain(sandbox.id);
    await other.manager.close();
    await filler.manager.close();
  }, 120_000);

  it("check the network once per node: a node another instance found isolated is not probed again", async () => {
    const checks = await listNetworkChecks({ namespace, since: new Date(0) });
    expect(checks).toEqual([expect.objectContaining({ driver: "docker", node: os.hostname(), isolated: true })]);
    expect(await a.manager.networkState()).toBe("isolated");
    for (const row of await listSandboxes()) if (row.status === "pooled") await a.manager.fleet.destroy(row);
    // A new instance (nothing remembered in its process) starts a sandbox on that node without probing it.
    const newcomer = countingDriver();
    const c = createTestSandboxes({ poolSize: 0, namespace }, { driver: newcomer.driver });
    // Another deployment on the same host has not checked it: it probes.
    const stranger = countingDriver();
    const d = createTestSandboxes({ poolSize: 0 }, { driver: stranger.driver });
    try {
      await c.manager.createSandbox({ userId: await newUserId() });
      expect(newcomer.started.length).toBe(1);
      expect(newcomer.probes).toEqual([]);
      await d.manager.createSandbox({ userId: await newUserId() });
      expect(stranger.probes.length).toBe(1);
      // Once the result is old, the node is probed again.
      await recordNetworkCheck({ ...checks[0]!, checkedAt: new Date(Date.now() - 2 * 3600_000) });
      const later = countingDriver();
      const e = createTestSandboxes({ poolSize: 0, namespace }, { driver: later.driver });
      try {
        await e.manager.createSandbox({ userId: await newUserId() });
        expect(later.probes.length).toBe(1);
      } finally {
        await e.cleanup();
      }
    } finally {
      await c.cleanup();
      await d.cleanup();
    }
  }, 120_000);

  it("run the deployment's image: recorded by the last instance to start, read by the others", async () => {
    const own = await a.manager.image();
    expect(await findDeploymentSetting({ key: IMAGE_SETTING })).toBe(own);
    // A manager that never built or checked an image knows the deployment's from the data layer (what GC keeps).
    const fresh = createTestSandboxes({ poolSize: 0, namespace });
    try {
      expect(await fresh.manager.fleet.currentImage()).toBe(own);
      // Once ready, its own image is recorded (the last instance to start decides; a rollback rolls the image back).
      expect(await fresh.manager.image()).toBe(own);
      // The deployment's image is what every instance starts from, when its engine has it.
      const [repo, tag] = ["localhost/sitewright-sandbox-deployment", randomUUID().slice(0, 8)];
      await a.engine.docker.getImage(own).tag({ repo, tag });
      try {
        await setDeploymentSetting({ key: IMAGE_SETTING, value: `${repo}:${tag}`, now: new Date() });
        expect(await fresh.manager.image()).toBe(`${repo}:${tag}`);
        expect(await fresh.manager.fleet.currentImage()).toBe(`${repo}:${tag}`);
        // One its engine does not have: it keeps to its own.
        await setDeploymentSetting({ key: IMAGE_SETTING, value: `${repo}:missing`, now: new Date() });
        expect(await fresh.manager.image()).toBe(own);
      } finally {
        await setDeploymentSetting({ key: IMAGE_SETTING, value: own, now: new Date() });
        await a.engine.docker.getImage(`${repo}:${tag}`).remove();
      }
    } finally {
      await fresh.cleanup();
    }
  }, 120_000);
});

describe("a sandbox reached at its stored endpoint", () => {
  let t: TestSandboxes;
  let proxy: http.Server;
  const seen: string[] = [];
  beforeAll(async () => {
    t = createTestSandboxes({ poolSize: 0 });
    await t.manager.image();
  });
  afterAll(async () => {
    proxy?.close();
    await t.cleanup();
  });

  /**
   * A relay on another loopback address (as a pod's IP would be another host) to the sandbox's real endpoint;
   * `/endpoint-echo` answers with the relay's own address in its body, as a page naming its site URL would.
   */
  async function relayTo(target: string): Promise<string> {
    proxy = http.createServer((request, response) => {
      seen.push(request.url ?? "");
      if (request.url === "/endpoint-echo") {
        const self = `http://${request.headers.host}`;
        response.writeHead(200, { "content-type": "text/html" });
        // Plain, and JSON-escaped as WordPress writes URLs into inline scripts.
        response.end(`<a href="${self}/page">x</a> {"url":"${self.replaceAll("/", "\\/")}\\/page"}`);
        return;
      }
      const upstream = http.request(
        `${target}${request.url}`,
        { method: request.method, headers: request.headers },
        (r) => {
          response.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(response);
        },
      );
      request.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.2", resolve));
    return `http://127.0.0.2:${(proxy.address() as net.AddressInfo).port}`;
  }

  it("is reached by its client and its preview at the endpoint its row stores, not at an address assumed", async () => {
    const userId = await newUserId();
    const sandbox = await t.manager.createSandbox({ userId });
    const row = await findSandboxById({ id: sandbox.id });
    const relay = await relayTo(row!.endpoint!);
    const moved = await updateSandbox({ id: sandbox.id, endpoint: relay });

    const client = t.manager.fleet.clientFor(moved!);
    const info = await client.get<{ wordpress: string }>("/sitewright/v1/info");
    expect(info.data.wordpress).toMatch(/^6\.1/);
    expect(seen).toContain("/wp-json/sitewright/v1/info");

    const through = (path: string) =>
      openPreview({
        request: new Request(`${t.config.appUrl}/preview/${sandbox.id}${path}`),
        session: { userId, idHash: "the-owner's-session" },
        sandboxId: sandbox.id,
        path,
        search: "",
        sessionSecret: "s".repeat(32),
        sandboxes: t.manager,
      });
    const home = await through("/");
    expect(home.status).toBe(200);
    expect(seen).toContain("/");
    // Whatever host the endpoint has, its address never reaches the browser.
    const echoed = await (await through("/endpoint-echo")).text();
    expect(echoed).toContain(`href="${sandbox.previewUrl}page"`);
    expect(echoed).toContain(`{"url":"${`${sandbox.previewUrl}page`.replaceAll("/", "\\/")}"}`);
    expect(echoed).not.toContain("127.0.0.2");
  }, 60_000);
});
