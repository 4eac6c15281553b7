/**
 * The container engine, through the Docker API (Docker, or Podman's compatible service) with dockerode.
 * Every container this module makes is labelled as ours and hardened (SECURITY.md, "Containers"): not
 * privileged, no capabilities, no-new-privileges, a non-root user, memory/CPU/pids limits, a read-only root with
 * tmpfs where WordPress writes, its port published on 127.0.0.1 only, no environment secrets, no engine socket.
 */
import { PassThrough, type Readable } from "node:stream";
import Docker from "dockerode";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";

export const LABEL_SANDBOX = "sitewright.sandbox";
export const LABEL_EXPIRES = "sitewright.expires";
export const LABEL_OWNER = "sitewright.owner";
/** Which deployment (database) a container belongs to, so GC never touches another deployment's containers. */
export const LABEL_NAMESPACE = "sitewright.namespace";

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

export type ContainerSpec = {
  sandboxId: string;
  image: string;
  namespace: string;
  owner: string;
  expiresAt: Date;
};

export type ContainerInfo = {
  containerId: string;
  sandboxId: string;
  namespace: string;
  owner: string;
  expiresAt: Date | undefined;
  running: boolean;
  createdAt: Date;
};

export type ExecResult = { exitCode: number; stdout: string; stderr: string };

/** `unix:///run/podman/podman.sock` or `tcp://127.0.0.1:2375` → dockerode's connection options. */
export function dockerOptionsFrom(dockerHost: string | undefined): Docker.DockerOptions {
  const value = dockerHost?.trim() || "unix:///var/run/docker.sock";
  if (value.startsWith("unix://")) return { socketPath: value.slice("unix://".length) };
  if (value.startsWith("/")) return { socketPath: value };
  const url = new URL(value.replace(/^tcp:/, "http:"));
  return { protocol: url.protocol === "https:" ? "https" : "http", host: url.hostname, port: Number(url.port || 2375) };
}

const ENGINE_DOWN_CODES = new Set(["ECONNREFUSED", "ENOENT", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "EACCES"]);

/** True when an error means the engine could not be reached at all (socket gone, refused, timed out). */
export function isEngineDown(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: string }).code;
    if (code && ENGINE_DOWN_CODES.has(code)) return true;
    if (e instanceof AppError && e.code === "sandbox_unavailable") return true;
  }
  return false;
}

export const sandboxUnavailable = (cause?: unknown) =>
  new AppError("sandbox_unavailable", "Sandboxes are not available right now. Try again in a moment.", {
    status: 503,
    headers: { "Retry-After": "10" },
    cause,
  });

const statusOf = (error: unknown) => (error as { statusCode?: number }).statusCode;

export class SandboxEngine {
  readonly docker: Docker;

  constructor(options: { dockerHost?: string; docker?: Docker } = {}) {
    this.docker = options.docker ?? new Docker({ ...dockerOptionsFrom(options.dockerHost), timeout: 60_000 });
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
        new Promise((_, reject) => setTimeout(() => reject(Object.assign(new Error("engine ping timed out"), { code: "ETIMEDOUT" })), 3_000).unref()),
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

  /** The hardened container definition; exported through `containerOptions` so tests can read it. */
  containerOptions(spec: ContainerSpec): Docker.ContainerCreateOptions {
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
        RestartPolicy: { Name: "no" },
      },
    };
  }

  /** Creates and starts a sandbox container; returns its id and the loopback port it answers on. */
  async run(spec: ContainerSpec): Promise<{ containerId: string; hostPort: number }> {
    return this.call("run", async () => {
      const container = await this.docker.createContainer(this.containerOptions(spec));
      try {
        await container.start();
        const info = await container.inspect();
        const binding = info.NetworkSettings.Ports?.[`${SANDBOX_PORT}/tcp`]?.[0];
        const hostPort = Number(binding?.HostPort);
        if (!hostPort) throw new Error(`the engine published no port for ${spec.sandboxId}`);
        if (binding?.HostIp && binding.HostIp !== "127.0.0.1") throw new Error(`port published on ${binding.HostIp}`);
        return { containerId: info.Id, hostPort };
      } catch (error) {
        await container.remove({ force: true }).catch(() => {});
        throw error;
      }
    });
  }

  async inspect(containerId: string): Promise<Docker.ContainerInspectInfo | undefined> {
    return this.call("inspect", async () => {
      try {
        return await this.docker.getContainer(containerId).inspect();
      } catch (error) {
        if (statusOf(error) === 404) return undefined;
        throw error;
      }
    });
  }

  async stop(containerId: string): Promise<void> {
    await this.call("stop", async () => {
      try {
        await this.docker.getContainer(containerId).stop({ t: 1 });
      } catch (error) {
        if (statusOf(error) === 404 || statusOf(error) === 304) return;
        throw error;
      }
    });
  }

  /** Removes a container, running or not; a container already gone is not an error. */
  async remove(containerId: string): Promise<void> {
    await this.call("remove", async () => {
      try {
        await this.docker.getContainer(containerId).remove({ force: true, v: true });
      } catch (error) {
        if (statusOf(error) === 404) return;
        // Podman answers 409/500 while a removal is already under way.
        if (/no such container|removal.*in progress/i.test(String((error as Error).message))) return;
        throw error;
      }
    });
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
      const output = (await this.docker.getContainer(containerId).logs({ stdout: true, stderr: true, follow: false })) as unknown;
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
        stream.on("end", () => (clearTimeout(timer), resolve()));
        stream.on("close", () => (clearTimeout(timer), resolve()));
        stream.on("error", (error) => (clearTimeout(timer), reject(error)));
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
