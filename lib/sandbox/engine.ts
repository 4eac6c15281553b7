/**
 * The container engine, through the Docker API (Docker, or Podman's compatible service) with dockerode: what the
 * `docker` driver (docker-driver.ts) runs sandboxes with.
 * Every container this module makes is labelled as ours and hardened (SECURITY.md, "Containers"): not
 * privileged, no capabilities, no-new-privileges, a non-root user, memory/CPU/pids limits, a read-only root with
 * tmpfs where WordPress writes, its port published on 127.0.0.1 only, no environment secrets, no engine socket.
 * Each sandbox runs on a bridge network of its own, with an address range from the sandbox network pool, which
 * the host's firewall keeps from starting any connection (docs/sandboxes.md, "Network"): the service reaches it
 * through its published port, and it reaches nothing.
 */
import { randomInt } from "node:crypto";
import { isIPv4 } from "node:net";
import { PassThrough, type Readable } from "node:stream";
import Docker from "dockerode";
import { AppError, findCause } from "@/lib/errors";
import { log } from "@/lib/log";
import type { ExecResult, SandboxSpec } from "./driver";
import { timedStep } from "./steps";

export const LABEL_SANDBOX = "sitewright.sandbox";
export const LABEL_EXPIRES = "sitewright.expires";
export const LABEL_OWNER = "sitewright.owner";
/** Which deployment (database) a container belongs to, so GC never touches another deployment's containers. */
export const LABEL_NAMESPACE = "sitewright.namespace";

/** A sandbox's own network is named after it. */
export const NETWORK_PREFIX = "sitewright-net-";
/**
 * The host's side of a sandbox's bridge is named `swsbx` + 10 hex digits of its id (15 characters, the kernel's
 * limit): the IPv6 rules of scripts/setup/sandbox-network.sh match these bridges by that prefix (`-i swsbx+`).
 */
export const BRIDGE_PREFIX = "swsbx";
/**
 * Sandboxes get no IPv6 at all: no link-local address, so nothing to reach the host's `::` listeners with (the
 * firewall's IPv6 rules are the second lock). Set at create; the runtime applies them inside the container.
 */
export const IPV6_OFF_SYSCTLS = {
  "net.ipv6.conf.all.disable_ipv6": "1",
  "net.ipv6.conf.default.disable_ipv6": "1",
} as const;
/** The default range sandbox networks take their /28 subnets from (SANDBOX_NETWORK_POOL). */
export const DEFAULT_NETWORK_POOL = "10.213.0.0/16";
/** A network older than this with no container is an orphan (its container was never made, or is gone). */
const NETWORK_ORPHAN_MS = 60_000;

/** The port PHP's built-in server listens on inside the sandbox. */
export const SANDBOX_PORT = 8080;
/** The unprivileged user baked into the image (scripts/sandbox/rootfs.sh). */
export const SANDBOX_USER = "10001:10001";

export const SANDBOX_LIMITS = {
  memoryBytes: 256 * 1024 * 1024,
  nanoCpus: 1_000_000_000,
  pids: 64,
  dataTmpfsBytes: 64 * 1024 * 1024,
} as const;

/** What to start: the same for every driver (driver.ts). */
export type ContainerSpec = SandboxSpec;

export type ContainerInfo = {
  containerId: string;
  sandboxId: string;
  namespace: string;
  owner: string;
  expiresAt: Date | undefined;
  running: boolean;
  createdAt: Date;
};

/** `10.213.0.0/16` → its first address as a number and its prefix length; throws on anything else. */
export function parsePool(pool: string): { base: number; prefix: number } {
  const [address, bits] = pool.split("/");
  const prefix = Number(bits);
  if (!address || !isIPv4(address) || !Number.isInteger(prefix) || prefix < 8 || prefix > 28) {
    throw new Error(`SANDBOX_NETWORK_POOL must be an IPv4 range from /8 to /28, not "${pool}"`);
  }
  const value = address.split(".").reduce((sum, part) => sum * 256 + Number(part), 0);
  const size = 2 ** (32 - prefix);
  return { base: value - (value % size), prefix };
}

const dotted = (value: number) => [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join(".");

/** A random /28 of the pool: its subnet and gateway (the host's side of the bridge). */
export function pickSubnet(pool: string): { subnet: string; gateway: string } {
  const { base, prefix } = parsePool(pool);
  const start = base + randomInt(2 ** (28 - prefix)) * 16;
  return { subnet: `${dotted(start)}/28`, gateway: dotted(start + 1) };
}

/** `unix:///run/podman/podman.sock` or `tcp://127.0.0.1:2375` → dockerode's connection options. */
/** The name of the host's side of a sandbox's bridge (see BRIDGE_PREFIX). */
export function bridgeNameFor(sandboxId: string): string {
  return `${BRIDGE_PREFIX}${sandboxId
    .replace(/[^0-9a-f]/gi, "")
    .slice(0, 10)
    .toLowerCase()}`;
}

export function dockerOptionsFrom(dockerHost: string | undefined): Docker.DockerOptions {
  const value = dockerHost?.trim() || "unix:///var/run/docker.sock";
  if (value.startsWith("unix://")) return { socketPath: value.slice("unix://".length) };
  if (value.startsWith("/")) return { socketPath: value };
  const url = new URL(value.replace(/^tcp:/, "http:"));
  return { protocol: url.protocol === "https:" ? "https" : "http", host: url.hostname, port: Number(url.port || 2375) };
}

const ENGINE_DOWN_CODES = new Set([
  "ECONNREFUSED",
  "ENOENT",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "EACCES",
]);

/** True when an error means the engine could not be reached at all (socket gone, refused, timed out). */
export function isEngineDown(error: unknown): boolean {
  return (
    findCause(error, (link) => {
      const code = (link as { code?: unknown }).code;
      return typeof code === "string" && (ENGINE_DOWN_CODES.has(code) || code === "sandbox_unavailable");
    }) !== undefined
  );
}

export const sandboxUnavailable = (cause?: unknown) =>
  new AppError("sandbox_unavailable", "Sandboxes are not available right now. Try again in a moment.", {
    headers: { "Retry-After": "10" },
    cause,
  });

const statusOf = (error: unknown) => (error as { statusCode?: number }).statusCode;

/**
 * A container that is gone, or going: Docker answers 404; Podman answers 500 "…does not exist in database: no such
 * container" while a removal is under way (measured on Podman 4.3), then 404.
 */
const isGoneContainer = (error: unknown) =>
  statusOf(error) === 404 || /no such container|removal.*in progress/i.test(String((error as Error).message));

export class SandboxEngine {
  readonly docker: Docker;

  readonly networkPool: string;

  /** False once the engine's host refused the IPv6 sysctls: its kernel has no IPv6, so there is none to turn off. */
  private ipv6Sysctls = true;

  constructor(options: { dockerHost?: string; docker?: Docker; networkPool?: string } = {}) {
    this.docker = options.docker ?? new Docker({ ...dockerOptionsFrom(options.dockerHost), timeout: 60_000 });
    this.networkPool = options.networkPool ?? DEFAULT_NETWORK_POOL;
    parsePool(this.networkPool);
  }

  /** Runs an engine call, turning "cannot reach the engine" into `503 sandbox_unavailable`. */
  private async call<T>(what: string, action: () => Promise<T>): Promise<T> {
    try {
      return await action();
    } catch (error) {
      if (isEngineDown(error)) {
        log.warn("sandbox engine unreachable", { what, error });
        throw sandboxUnavailable(error);
      }
      throw error;
    }
  }

  async ping(): Promise<void> {
    await this.call("ping", () =>
      Promise.race([
        this.docker.ping(),
        new Promise((_, reject) =>
          setTimeout(
            () => reject(Object.assign(new Error("engine ping timed out"), { code: "ETIMEDOUT" })),
            3_000,
          ).unref(),
        ),
      ]),
    );
  }

  async imageExists(tag: string): Promise<boolean> {
    return this.call("image inspect", async () => {
      try {
        await this.docker.getImage(tag).inspect();
        return true;
      } catch (error) {
        if (statusOf(error) === 404) return false;
        throw error;
      }
    });
  }

  /**
   * Creates the sandbox's own bridge network on a free /28 of the pool (another sandbox or network on the host
   * may hold the one picked: then another is tried). Not `internal`: an internal network gives the host no
   * address on the bridge, so the published port could not reach the container; the firewall rules of
   * scripts/setup/sandbox-network.sh stop the sandbox from starting any connection instead.
   */
  private async createNetwork(spec: ContainerSpec): Promise<string> {
    let lastError: unknown;
    for (let attempt = 0; attempt < 12; attempt++) {
      const options = this.networkOptions(spec, pickSubnet(this.networkPool));
      try {
        await this.docker.createNetwork(options);
        return options.Name;
      } catch (error) {
        lastError = error;
        if (!/already used|overlap|in use|conflict/i.test(String((error as Error).message))) throw error;
      }
    }
    throw new Error(`no free subnet for a sandbox network in ${this.networkPool}`, { cause: lastError });
  }

  /**
   * The sandbox's network definition (exported so tests can read it): a bridge on one /28 of the pool, its host
   * side named for the IPv6 rules (`com.docker.network.bridge.name`, honoured by Docker and by Podman's API).
   */
  networkOptions(spec: ContainerSpec, range: { subnet: string; gateway: string }): Docker.NetworkCreateOptions {
    return {
      Name: `${NETWORK_PREFIX}${spec.sandboxId}`,
      Driver: "bridge",
      Internal: false,
      CheckDuplicate: true,
      EnableIPv6: false,
      Labels: { [LABEL_SANDBOX]: spec.sandboxId, [LABEL_NAMESPACE]: spec.namespace },
      Options: { "com.docker.network.bridge.name": bridgeNameFor(spec.sandboxId) },
      IPAM: { Driver: "default", Config: [{ Subnet: range.subnet, Gateway: range.gateway }] },
    };
  }

  private async removeNetwork(name: string): Promise<void> {
    try {
      await this.docker.getNetwork(name).remove();
    } catch (error) {
      if (statusOf(error) === 404 || /no such network|not found/i.test(String((error as Error).message))) return;
      throw error;
    }
  }

  /**
   * Removes sandbox networks of this namespace that no container of `liveSandboxIds` uses and that are older than
   * a minute (a network is made just before its container). Returns the removed networks' names.
   */
  async pruneNetworks(namespace: string, liveSandboxIds: Set<string>): Promise<string[]> {
    return this.call("network prune", async () => {
      const networks = await this.docker.listNetworks({
        filters: { label: [LABEL_SANDBOX, `${LABEL_NAMESPACE}=${namespace}`] },
      });
      const removed: string[] = [];
      for (const network of networks) {
        const sandboxId = network.Labels?.[LABEL_SANDBOX] ?? "";
        const created = Date.parse(network.Created ?? "");
        if (liveSandboxIds.has(sandboxId) || (!Number.isNaN(created) && Date.now() - created < NETWORK_ORPHAN_MS))
          continue;
        await this.removeNetwork(network.Name).catch((error) =>
          log.warn("could not remove a sandbox network", { network: network.Name, error }),
        );
        removed.push(network.Name);
      }
      return removed;
    });
  }

  /** The hardened container definition; exported through `containerOptions` so tests can read it. */
  containerOptions(spec: ContainerSpec, network = `${NETWORK_PREFIX}${spec.sandboxId}`): Docker.ContainerCreateOptions {
    return {
      name: `sitewright-${spec.sandboxId}`,
      Image: spec.image,
      User: SANDBOX_USER,
      Env: [],
      Labels: {
        [LABEL_SANDBOX]: spec.sandboxId,
        [LABEL_EXPIRES]: spec.expiresAt.toISOString(),
        [LABEL_OWNER]: spec.owner,
        [LABEL_NAMESPACE]: spec.namespace,
      },
      ExposedPorts: { [`${SANDBOX_PORT}/tcp`]: {} },
      StopTimeout: 1,
      HostConfig: {
        Privileged: false,
        CapDrop: ["ALL"],
        // PHP's server binds an unprivileged port as an unprivileged user: it needs no capability at all.
        CapAdd: [],
        SecurityOpt: ["no-new-privileges"],
        ReadonlyRootfs: true,
        Tmpfs: {
          "/data": `rw,noexec,nosuid,nodev,size=${SANDBOX_LIMITS.dataTmpfsBytes},mode=1777`,
          "/tmp": "rw,noexec,nosuid,nodev,size=16m,mode=1777",
        },
        Memory: SANDBOX_LIMITS.memoryBytes,
        MemorySwap: SANDBOX_LIMITS.memoryBytes,
        NanoCpus: SANDBOX_LIMITS.nanoCpus,
        PidsLimit: SANDBOX_LIMITS.pids,
        PortBindings: { [`${SANDBOX_PORT}/tcp`]: [{ HostIp: "127.0.0.1", HostPort: "" }] },
        Binds: [],
        NetworkMode: network,
        ...(this.ipv6Sysctls ? { Sysctls: { ...IPV6_OFF_SYSCTLS } } : {}),
        RestartPolicy: { Name: "no" },
      },
    };
  }

  /** Creates and starts a sandbox container; returns its id and the loopback port it answers on. */
  async run(spec: ContainerSpec): Promise<{ containerId: string; hostPort: number }> {
    try {
      return await this.runOnce(spec);
    } catch (error) {
      if (!this.ipv6Sysctls || !/net[./]ipv6|disable_ipv6/i.test(String((error as Error).message))) throw error;
      log.warn("the engine's host has no IPv6 to turn off in sandboxes: starting them without the sysctls", { error });
      this.ipv6Sysctls = false;
      return this.runOnce(spec);
    }
  }

  private async runOnce(spec: ContainerSpec): Promise<{ containerId: string; hostPort: number }> {
    const { containerId } = await this.prepareOnce(spec);
    return this.startPrepared(containerId, spec.sandboxId);
  }

  /**
   * Creates a sandbox's network and container without starting it (see spares.ts): nothing runs in it yet, it
   * holds no secret and no data (the entrypoint makes those when it starts), so it belongs to nobody until then.
   */
  async prepare(spec: ContainerSpec): Promise<{ containerId: string }> {
    try {
      return await this.prepareOnce(spec);
    } catch (error) {
      if (!this.ipv6Sysctls || !/net[./]ipv6|disable_ipv6/i.test(String((error as Error).message))) throw error;
      log.warn("the engine's host has no IPv6 to turn off in sandboxes: starting them without the sysctls", { error });
      this.ipv6Sysctls = false;
      return this.prepareOnce(spec);
    }
  }

  private async prepareOnce(spec: ContainerSpec): Promise<{ containerId: string }> {
    return this.call("create", async () => {
      const network = await timedStep("network", spec.sandboxId, () => this.createNetwork(spec));
      try {
        const container = await timedStep("create", spec.sandboxId, () =>
          this.docker.createContainer(this.containerOptions(spec, network)),
        );
        return { containerId: container.id };
      } catch (error) {
        await this.removeNetwork(network).catch(() => {});
        throw error;
      }
    });
  }

  /** Starts a prepared container; returns the loopback port it answers on. A failure removes it and its network. */
  async startPrepared(containerId: string, sandboxId: string): Promise<{ containerId: string; hostPort: number }> {
    return this.call("start", async () => {
      const container = this.docker.getContainer(containerId);
      try {
        return await timedStep("start", sandboxId, async () => {
          await container.start();
          const info = await container.inspect();
          const binding = info.NetworkSettings.Ports?.[`${SANDBOX_PORT}/tcp`]?.[0];
          const hostPort = Number(binding?.HostPort);
          if (!hostPort) throw new Error(`the engine published no port for ${sandboxId}`);
          if (binding?.HostIp && binding.HostIp !== "127.0.0.1") throw new Error(`port published on ${binding.HostIp}`);
          return { containerId: info.Id, hostPort };
        });
      } catch (error) {
        await container.remove({ force: true }).catch(() => {});
        await this.removeNetwork(`${NETWORK_PREFIX}${sandboxId}`).catch(() => {});
        throw error;
      }
    });
  }

  async inspect(containerId: string): Promise<Docker.ContainerInspectInfo | undefined> {
    return this.call("inspect", async () => {
      try {
        return await this.docker.getContainer(containerId).inspect();
      } catch (error) {
        if (isGoneContainer(error)) return undefined;
        throw error;
      }
    });
  }

  /** Removes a container, running or not, and its own network; a container already gone is not an error. */
  async remove(containerId: string): Promise<void> {
    await this.call("remove", async () => {
      let networks: string[] = [];
      try {
        const info = await this.docker.getContainer(containerId).inspect();
        networks = Object.keys(info.NetworkSettings?.Networks ?? {}).filter((name) => name.startsWith(NETWORK_PREFIX));
        const sandboxId = info.Config?.Labels?.[LABEL_SANDBOX];
        if (sandboxId && !networks.includes(`${NETWORK_PREFIX}${sandboxId}`))
          networks.push(`${NETWORK_PREFIX}${sandboxId}`);
        await this.docker.getContainer(containerId).remove({ force: true, v: true });
      } catch (error) {
        // Podman answers 409/500 while a removal is already under way.
        if (isGoneContainer(error)) return;
        throw error;
      }
      for (const network of networks) {
        await this.removeNetwork(network).catch((error) =>
          log.warn("could not remove a sandbox network", { network, error }),
        );
      }
    });
  }

  /** Removes a sandbox's own network; one already gone is not an error (its container may have taken it along). */
  async removeSandboxNetwork(sandboxId: string): Promise<void> {
    await this.call("network remove", () => this.removeNetwork(`${NETWORK_PREFIX}${sandboxId}`));
  }

  /** Every container labelled as a sandbox of this namespace (all of them when namespace is undefined). */
  async list(namespace?: string): Promise<ContainerInfo[]> {
    return this.call("list", async () => {
      const filters = { label: namespace ? [LABEL_SANDBOX, `${LABEL_NAMESPACE}=${namespace}`] : [LABEL_SANDBOX] };
      const containers = await this.docker.listContainers({ all: true, filters });
      return containers.map((c) => {
        const expires = c.Labels[LABEL_EXPIRES];
        return {
          containerId: c.Id,
          sandboxId: c.Labels[LABEL_SANDBOX] ?? "",
          namespace: c.Labels[LABEL_NAMESPACE] ?? "",
          owner: c.Labels[LABEL_OWNER] ?? "",
          expiresAt: expires && !Number.isNaN(Date.parse(expires)) ? new Date(expires) : undefined,
          running: c.State === "running",
          createdAt: new Date(c.Created * 1000),
        };
      });
    });
  }

  /** The container's output so far (stdout and stderr, stream headers left in: callers search it). */
  async logs(containerId: string): Promise<string> {
    return this.call("logs", async () => {
      const output = (await this.docker
        .getContainer(containerId)
        .logs({ stdout: true, stderr: true, follow: false })) as unknown;
      return Buffer.isBuffer(output) ? output.toString("utf8") : String(output);
    });
  }

  /** Runs a command inside a running sandbox as its unprivileged user and collects its output. */
  async exec(containerId: string, cmd: string[], options: { timeoutMs?: number } = {}): Promise<ExecResult> {
    return this.call("exec", async () => {
      const container = this.docker.getContainer(containerId);
      const exec = await container.exec({ Cmd: cmd, AttachStdout: true, AttachStderr: true, User: SANDBOX_USER });
      const stream = (await exec.start({ hijack: true, stdin: false })) as Readable;
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      stdout.on("data", (chunk: Buffer) => out.push(chunk));
      stderr.on("data", (chunk: Buffer) => err.push(chunk));
      this.docker.modem.demuxStream(stream, stdout, stderr);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          stream.destroy();
          reject(new Error(`exec timed out: ${cmd[0]}`));
        }, options.timeoutMs ?? 30_000);
        const settle = (error?: Error) => {
          clearTimeout(timer);
          if (error) reject(error);
          else resolve();
        };
        stream.on("end", () => settle());
        stream.on("close", () => settle());
        stream.on("error", (error) => settle(error));
      });
      const info = await exec.inspect();
      return {
        exitCode: info.ExitCode ?? -1,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
      };
    });
  }
}
