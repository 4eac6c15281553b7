/**
 * The `docker` driver: sandboxes as containers on one Docker-API engine (Docker, or Podman's compatible service),
 * through SandboxEngine (engine.ts). Its endpoint is the port the engine publishes on the host's 127.0.0.1, so the
 * app reaches its sandboxes only from the engine's own host; its node is that host.
 */
import os from "node:os";
import type { DriverSandbox, ExecResult, IsolationTarget, SandboxDriver, SandboxSpec, StartedSandbox } from "./driver";
import { SandboxEngine } from "./engine";

export class DockerDriver implements SandboxDriver {
  readonly name = "docker" as const;

  /** The engine itself: the image build (image.ts) talks to it directly; nothing else above the driver does. */
  readonly engine: SandboxEngine;

  constructor(options: { engine?: SandboxEngine; dockerHost?: string; networkPool?: string } = {}) {
    this.engine =
      options.engine ?? new SandboxEngine({ dockerHost: options.dockerHost, networkPool: options.networkPool });
  }

  ping(): Promise<void> {
    return this.engine.ping();
  }

  async start(spec: SandboxSpec): Promise<StartedSandbox> {
    const { containerId, hostPort } = await this.engine.run(spec);
    return { handle: containerId, endpoint: `http://127.0.0.1:${hostPort}`, node: os.hostname() };
  }

  async prepare(spec: SandboxSpec): Promise<{ handle: string }> {
    return { handle: (await this.engine.prepare(spec)).containerId };
  }

  async startPrepared(handle: string, sandboxId: string): Promise<StartedSandbox> {
    const { containerId, hostPort } = await this.engine.startPrepared(handle, sandboxId);
    return { handle: containerId, endpoint: `http://127.0.0.1:${hostPort}`, node: os.hostname() };
  }

  logs(handle: string): Promise<string> {
    return this.engine.logs(handle);
  }

  exec(handle: string, cmd: string[], options?: { timeoutMs?: number }): Promise<ExecResult> {
    return this.engine.exec(handle, cmd, options);
  }

  remove(handle: string): Promise<void> {
    return this.engine.remove(handle);
  }

  /** A container that vanished (removed behind our back) leaves its network: removing the container cannot see it. */
  removeLeftovers(sandboxId: string): Promise<void> {
    return this.engine.removeSandboxNetwork(sandboxId);
  }

  async list(namespace?: string): Promise<DriverSandbox[]> {
    return (await this.engine.list(namespace)).map(({ containerId, ...rest }) => ({ handle: containerId, ...rest }));
  }

  async isRunning(handle: string): Promise<boolean> {
    const info = await this.engine.inspect(handle);
    return Boolean(info?.State.Running && !info.State.Paused);
  }

  /** The sandbox's gateway is the host's side of its own bridge network. */
  async isolationTarget(handle: string): Promise<IsolationTarget> {
    const info = await this.engine.inspect(handle);
    const gateway = Object.values(info?.NetworkSettings.Networks ?? {})[0]?.Gateway || undefined;
    return { gateway, node: os.hostname() };
  }

  pruneLeftovers(namespace: string, liveSandboxIds: Set<string>): Promise<string[]> {
    return this.engine.pruneNetworks(namespace, liveSandboxIds);
  }

  imageExists(tag: string): Promise<boolean> {
    return this.engine.imageExists(tag);
  }
}

/** The docker driver's engine, for what only it has (the image build); undefined for another driver. */
export const dockerEngineOf = (driver: SandboxDriver): SandboxEngine | undefined =>
  driver.name === "docker" ? (driver as Partial<DockerDriver>).engine : undefined;
