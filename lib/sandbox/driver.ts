/**
 * What the sandbox manager needs from whatever runs sandboxes (SANDBOX_DRIVER): `docker` (any Docker-API engine,
 * Docker or Podman: lib/sandbox/engine.ts) or `kubernetes` (a pod per sandbox: lib/sandbox/kubernetes.ts). Everything
 * above this interface (lifecycle, pool, provisioning, preview, Apply) works from what `start` answers and the data
 * layer stores — the endpoint, the node, the driver — never from an address it assumes.
 */

/** The hardened sandbox to start: the same for every driver. */
export type SandboxSpec = {
  sandboxId: string;
  image: string;
  /** The deployment the sandbox belongs to (GC never touches another deployment's sandboxes). */
  namespace: string;
  /** A user id, or "pool". */
  owner: string;
  /** The driver ends the sandbox by itself at this time where it can (Kubernetes: `activeDeadlineSeconds`). */
  expiresAt: Date;
};

export type StartedSandbox = {
  /** The driver's own name for it: a container id, a pod name. */
  handle: string;
  /** The origin the service reaches the sandbox's WordPress at, `http://<host>:<port>`, no path. */
  endpoint: string;
  /** Where it runs: the engine's host, the Kubernetes node. The network check is per node. */
  node: string;
};

/** A sandbox as the driver lists it (by its labels). */
export type DriverSandbox = {
  handle: string;
  sandboxId: string;
  namespace: string;
  owner: string;
  expiresAt: Date | undefined;
  running: boolean;
  createdAt: Date;
};

export type ExecResult = { exitCode: number; stdout: string; stderr: string };

/**
 * Where the isolation probe aims from inside a sandbox: the address of the host (or node) it runs on, as the
 * sandbox sees it (its gateway), and whether that host is this process's own (then its IPv6 link-local addresses
 * are known here, and a tentative one can be waited for).
 */
export type IsolationTarget = { gateway: string | undefined; node: string };

export type DriverName = "docker" | "kubernetes";

export interface SandboxDriver {
  readonly name: DriverName;
  /** Throws `sandbox_unavailable` (503) when the engine or cluster cannot be reached. */
  ping(): Promise<void>;
  /** Starts the sandbox, hardened, and answers once it has an endpoint (WordPress may still be starting). */
  start(spec: SandboxSpec): Promise<StartedSandbox>;
  /** Its output so far (callers search it for the provisioning token). */
  logs(handle: string): Promise<string>;
  /** Runs a command inside it as its unprivileged user. */
  exec(handle: string, cmd: string[], options?: { timeoutMs?: number }): Promise<ExecResult>;
  /** Removes it and what the driver made for it (network, policy); one already gone is not an error. */
  remove(handle: string): Promise<void>;
  /** Removes what the driver made for a sandbox that may have no handle any more (its network, its policy). */
  removeLeftovers(sandboxId: string): Promise<void>;
  /** Every sandbox labelled as this deployment's (every deployment's when namespace is undefined). */
  list(namespace?: string): Promise<DriverSandbox[]>;
  isRunning(handle: string): Promise<boolean>;
  /** The isolation probe's target for a running sandbox. */
  isolationTarget(handle: string): Promise<IsolationTarget>;
  /** Removes leftovers (networks, policies) of this deployment's sandboxes not in `liveSandboxIds`; their names. */
  pruneLeftovers(namespace: string, liveSandboxIds: Set<string>): Promise<string[]>;
  /** Whether the image is where sandboxes can run it (the engine's store, the cluster's registry or nodes). */
  imageExists(tag: string): Promise<boolean>;
  /**
   * Brings a running sandbox's own end forward to `expiresAt`, where the driver ends sandboxes by itself (Kubernetes:
   * `activeDeadlineSeconds`, which only goes down): a pool member handed to a user gets the user's expiry, so it
   * dies with every app instance down. False when it is gone. Drivers whose sandboxes only end by GC leave it out.
   */
  setExpiry?(handle: string, expiresAt: Date): Promise<boolean>;
  /**
   * Makes what a sandbox needs before it starts (its network, its created container) without starting it: a spare
   * (spares.ts) that a cold start then only starts. Nothing runs in it and it holds no secret or data until
   * `startPrepared`. Drivers that cannot (Kubernetes: a pod starts when made) leave both out.
   */
  prepare?(spec: SandboxSpec): Promise<{ handle: string }>;
  /** Starts a prepared sandbox; a failure removes it. */
  startPrepared?(handle: string, sandboxId: string): Promise<StartedSandbox>;
}
