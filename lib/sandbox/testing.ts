/**
 * Sandbox managers for tests: a real engine (Podman through DOCKER_HOST, set up by scripts/setup/podman.sh), the
 * real image (built when missing), and a namespace of their own so parallel test files never collect each
 * other's containers. `cleanup()` removes every container of that namespace and their records.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { deleteSandboxRow, listSandboxes } from "@/lib/db/queries";
import { sandboxConfig, type SandboxConfig } from "./config";
import { SandboxEngine } from "./engine";
import { SandboxManager, type SiteSource } from "./sandboxes";

export type TestSandboxes = { manager: SandboxManager; engine: SandboxEngine; namespace: string; cleanup(): Promise<void> };

export function createTestSandboxes(overrides: Partial<SandboxConfig> = {}, deps: { siteSource?: SiteSource; engine?: SandboxEngine } = {}): TestSandboxes {
  const namespace = `test-${randomBytes(5).toString("hex")}`;
  const mediaCacheDir = mkdtempSync(path.join(os.tmpdir(), "sitewright-media-"));
  const config = sandboxConfig({ enabled: true, poolSize: 0, max: 10, namespace, mediaCacheDir, ...overrides });
  const cleanupEngine = new SandboxEngine({ dockerHost: sandboxConfig().dockerHost });
  const manager = new SandboxManager(config, { siteSource: deps.siteSource, engine: deps.engine });
  return {
    manager,
    engine: cleanupEngine,
    namespace,
    async cleanup() {
      await manager.close();
      const containers = await cleanupEngine.list(namespace);
      const ids = new Set(containers.map((c) => c.sandboxId));
      for (const container of containers) await cleanupEngine.remove(container.containerId);
      for (const row of await listSandboxes()) if (ids.has(row.id)) await deleteSandboxRow({ id: row.id });
      rmSync(mediaCacheDir, { recursive: true, force: true });
    },
  };
}
