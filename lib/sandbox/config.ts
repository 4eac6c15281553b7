/** Sandbox settings, from `env()` (the contract's SANDBOX_* variables) plus fixed policy. */
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import path from "node:path";
import { env } from "@/lib/env";
import { processState } from "@/lib/process-state";
import type { DriverName } from "./driver";

export type SandboxConfig = {
  /** False when SANDBOX_DRIVER is unset: every sandbox route answers 503 sandbox_unavailable. */
  enabled: boolean;
  /** SANDBOX_DRIVER: what runs sandboxes (driver.ts); `docker` when unset (then `enabled` is false). */
  driver: DriverName;
  dockerHost: string | undefined;
  /** The kubernetes driver's settings (SANDBOX_K8S_*, KUBECONFIG). */
  kubernetes: {
    /** The namespace sandbox pods run in. */
    namespace: string;
    /** A RuntimeClass for sandbox pods (gVisor, Kata), when the cluster has one. */
    runtimeClass: string | undefined;
    /** The kubeconfig file; undefined: in-cluster, then ~/.kube/config. */
    kubeconfig: string | undefined;
  };
  /** SANDBOX_NETWORK_POOL: the range sandbox networks take their subnets from. */
  networkPool: string;
  /** SANDBOX_REQUIRE_ISOLATION: refuse sandboxes while the network check finds them not isolated (default). */
  requireIsolation: boolean;
  /** A prebuilt image to run instead of building ours. */
  image: string | undefined;
  poolSize: number;
  /**
   * Spares kept ready for cold starts (spares.ts): networks and created, unstarted containers, not counted as the
   * pool. Fixed policy, not an environment variable: 2 covers a burst of cold starts while the next are made.
   */
  spares: number;
  /** Sandboxes handed to users at once (the warm pool comes on top). */
  max: number;
  /** Sandboxes one user may hold at once (SANDBOX_MAX_PER_USER). */
  maxPerUser: number;
  /** Default and longest lifetime of a sandbox. */
  ttlMinutes: number;
  /** A sandbox nobody used for this long is removed before its expiry. */
  idleMinutes: number;
  /** A pool member older than this is replaced, so the pool never serves a stale image. */
  poolMaxAgeMinutes: number;
  gcIntervalMs: number;
  /** `${SITEWRIGHT_CACHE:-/var/cache/sitewright}`: the image build's caches. */
  cacheDir: string;
  /** The media proxy's disk cache and its size cap. */
  mediaCacheDir: string;
  mediaCacheBytes: number;
  /** The service's public URL: sandbox media links point at its media proxy. */
  appUrl: string;
  /** Labels this deployment's sandboxes (containers, pods), so GC never removes another deployment's. */
  namespace: string;
  /** The host's ports the network check tries from inside a sandbox: 9 (discard), the app's, PostgreSQL's. */
  probePorts: number[];
};

const PODMAN_SOCKET = "/run/podman/podman.sock";
/** The process-state name of this process's in-memory deployment identity. */
export const MEMORY_DEPLOYMENT = "sandbox-memory-deployment";

/** In-memory deployments' namespaces start with this (legacy processes labelled theirs exactly "memory"). */
export const MEMORY_NAMESPACE_PREFIX = "memory";

export const isMemoryNamespace = (namespace: string) =>
  namespace === MEMORY_NAMESPACE_PREFIX || namespace.startsWith(`${MEMORY_NAMESPACE_PREFIX}-`);

/** 9 (discard, nothing listens), the app's port and PostgreSQL's (DATABASE_URL's, else 5432). */
function probePortsFor(appPort: number, databaseUrl: string | undefined): number[] {
  const databasePort = databaseUrl ? Number(new URL(databaseUrl).port || 5432) : 5432;
  return [...new Set([9, appPort, databasePort])];
}

/**
 * One deployment = one database: a hash of PostgreSQL's URL (without password), stable across restarts and
 * shared by every instance on that database; in memory, each process is a deployment of its own
 * (`memory-<random>`, made once per process): two in-memory processes on one engine never take each other's
 * containers for orphans.
 */
export function namespaceFor(databaseUrl: string | undefined): string {
  if (!databaseUrl) {
    return processState(MEMORY_DEPLOYMENT, () => `${MEMORY_NAMESPACE_PREFIX}-${randomBytes(6).toString("hex")}`);
  }
  const url = new URL(databaseUrl);
  url.password = "";
  return createHash("sha256").update(url.toString()).digest("hex").slice(0, 12);
}

export function sandboxConfig(overrides: Partial<SandboxConfig> = {}): SandboxConfig {
  const e = env();
  const cacheDir = overrides.cacheDir ?? e.SITEWRIGHT_CACHE;
  return {
    enabled: e.SANDBOX_DRIVER !== undefined,
    driver: e.SANDBOX_DRIVER ?? "docker",
    kubernetes: {
      namespace: e.SANDBOX_K8S_NAMESPACE,
      runtimeClass: e.SANDBOX_K8S_RUNTIME_CLASS,
      kubeconfig: e.KUBECONFIG,
    },
    dockerHost: e.DOCKER_HOST ?? (existsSync(PODMAN_SOCKET) ? `unix://${PODMAN_SOCKET}` : undefined),
    networkPool: e.SANDBOX_NETWORK_POOL,
    requireIsolation: e.SANDBOX_REQUIRE_ISOLATION,
    image: e.SANDBOX_IMAGE,
    poolSize: e.SANDBOX_POOL_SIZE,
    spares: 2,
    max: e.SANDBOX_MAX,
    maxPerUser: e.SANDBOX_MAX_PER_USER,
    ttlMinutes: e.SANDBOX_TTL_MINUTES,
    idleMinutes: 30,
    poolMaxAgeMinutes: 12 * 60,
    gcIntervalMs: 60_000,
    cacheDir,
    mediaCacheDir: path.join(cacheDir, "sandbox-media"),
    mediaCacheBytes: 256 * 1024 * 1024,
    appUrl: e.APP_URL,
    namespace: namespaceFor(e.DATABASE_URL),
    probePorts: probePortsFor(e.PORT, e.DATABASE_URL),
    ...overrides,
  };
}
