/**
 * Sandboxes go with the app: when the server stops (SIGTERM/SIGINT in server.mjs), this deployment's sandbox
 * containers are removed, so none keeps running, holding memory and a port, after the app is gone. Their records
 * stay; the next start's GC drops records whose container vanished. One deployment is one database
 * (lib/sandbox/config.ts, `namespace`): run one app instance per database with the docker driver. With the
 * kubernetes driver the app runs as several instances sharing one pool: one stopping removes nothing (the other
 * instances still use the pods; each pod's deadline ends it when every instance is gone).
 */
import { log } from "@/lib/log";
import { processState } from "@/lib/process-state";
import { sandboxConfig } from "./config";
import type { SandboxDriver } from "./driver";
import { createDriver } from "./drivers";

/** The hook server.mjs awaits on shutdown (plain JavaScript there, so it is found on globalThis by this symbol). */
export const SHUTDOWN_HOOK = Symbol.for("sitewright.shutdown");

type Closable = { close(): Promise<void> };

/** Removes every container labelled as this namespace's sandbox, with its network; returns how many went. */
export async function removeNamespaceSandboxes({
  driver,
  namespace,
}: {
  driver: Pick<SandboxDriver, "list" | "remove">;
  namespace: string;
}): Promise<number> {
  const containers = await driver.list(namespace);
  const results = await Promise.allSettled(containers.map((container) => driver.remove(container.handle)));
  for (const [index, result] of results.entries()) {
    if (result.status === "rejected") {
      log.warn("could not remove a sandbox at shutdown", {
        sandboxId: containers[index]?.sandboxId,
        error: result.reason,
      });
    }
  }
  return results.filter((result) => result.status === "fulfilled").length;
}

/** Stops the manager's background work (no new pool member starts), then removes this deployment's containers. */
export async function shutdownSandboxes(): Promise<void> {
  const config = sandboxConfig();
  if (!config.enabled) return;
  // The manager lib/sandbox/index.ts keeps for the process, when one was made.
  const holder = processState<{ manager?: Closable }>("sandboxes", () => ({}));
  await holder.manager?.close().catch((error) => log.warn("sandbox manager did not close cleanly", { error }));
  if (config.driver !== "docker") return;
  const removed = await removeNamespaceSandboxes({ driver: createDriver(config), namespace: config.namespace });
  log.info("sandboxes removed at shutdown", { removed, namespace: config.namespace });
}

/** Called at boot: lets server.mjs find `shutdownSandboxes` (one hook per process, whichever bundle boots). */
export function registerSandboxShutdown() {
  (globalThis as { [SHUTDOWN_HOOK]?: () => Promise<void> })[SHUTDOWN_HOOK] = shutdownSandboxes;
}
