/**
 * Chooses the sandbox driver from the configuration (SANDBOX_DRIVER). The kubernetes driver, and its client
 * library, load only when chosen: a Docker deployment never loads them.
 */
import type { SandboxConfig } from "./config";
import { DockerDriver } from "./docker-driver";
import type { DriverName, SandboxDriver } from "./driver";

export function createDriver(config: SandboxConfig): SandboxDriver {
  if (config.driver === "kubernetes") {
    return lazyDriver("kubernetes", async () =>
      (await import("./kubernetes")).createKubernetesDriver({
        k8sNamespace: config.kubernetes.namespace,
        k8sRuntimeClass: config.kubernetes.runtimeClass,
        kubeconfig: config.kubernetes.kubeconfig,
      }),
    );
  }
  return new DockerDriver({ dockerHost: config.dockerHost, networkPool: config.networkPool });
}

/**
 * A driver made on first use. A failure to make it (the module, the cluster's configuration) fails that call, with
 * the maker's error, and is tried again on the next.
 */
export function lazyDriver(name: DriverName, make: () => Promise<SandboxDriver> | SandboxDriver): SandboxDriver {
  let made: Promise<SandboxDriver> | undefined;
  const driver = () => {
    made ??= Promise.resolve()
      .then(make)
      .catch((error: unknown) => {
        made = undefined;
        throw error;
      });
    return made;
  };
  return {
    name,
    ping: async () => (await driver()).ping(),
    start: async (spec) => (await driver()).start(spec),
    logs: async (handle) => (await driver()).logs(handle),
    exec: async (handle, cmd, options) => (await driver()).exec(handle, cmd, options),
    remove: async (handle) => (await driver()).remove(handle),
    removeLeftovers: async (sandboxId) => (await driver()).removeLeftovers(sandboxId),
    list: async (namespace) => (await driver()).list(namespace),
    isRunning: async (handle) => (await driver()).isRunning(handle),
    isolationTarget: async (handle) => (await driver()).isolationTarget(handle),
    pruneLeftovers: async (namespace, live) => (await driver()).pruneLeftovers(namespace, live),
    imageExists: async (tag) => (await driver()).imageExists(tag),
    setExpiry: async (handle, expiresAt) => (await driver()).setExpiry?.(handle, expiresAt) ?? true,
  };
}
