/**
 * Sandbox managers for tests: a real engine (Podman through DOCKER_HOST, set up by scripts/setup/podman.sh), the
 * real image (built when missing), and a namespace of their own so parallel test files never collect each
 * other's containers. `cleanup()` removes every container of that namespace and their records.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { deleteSandboxRow, findSandboxById, listSandboxes } from "@/lib/db/queries";
import type { SignedSiteClient } from "@/lib/sites/client";
import { sandboxConfig, type SandboxConfig } from "./config";
import { DockerDriver } from "./docker-driver";
import type { SandboxDriver } from "./driver";
import { createDriver } from "./drivers";
import { SandboxEngine } from "./engine";
import { SandboxManager, type SiteSource } from "./sandboxes";

export type TestSandboxes = {
  manager: SandboxManager;
  /** The configuration the manager runs with. */
  config: SandboxConfig;
  /** The driver the manager runs sandboxes with. */
  driver: SandboxDriver;
  /** A Docker-API engine of its own, for what tests read below the driver (inspect, the daemon's state). */
  engine: SandboxEngine;
  namespace: string;
  /** The signed client for a sandbox (as the agent would hold it). */
  clientFor(sandboxId: string): Promise<SignedSiteClient>;
  /** The sandbox's stored endpoint (what only the service reaches; browsers get the preview). */
  directUrl(sandboxId: string): Promise<string>;
  cleanup(): Promise<void>;
};

export function createTestSandboxes(
  overrides: Partial<SandboxConfig> = {},
  deps: { siteSource?: SiteSource; engine?: SandboxEngine; driver?: SandboxDriver } = {},
): TestSandboxes {
  const namespace = overrides.namespace ?? `test-${randomBytes(5).toString("hex")}`;
  const mediaCacheDir = mkdtempSync(path.join(os.tmpdir(), "sitewright-media-"));
  // No spares unless a test asks (spares.test.ts): a test's sandboxes stay the ones it made.
  const config = sandboxConfig({
    enabled: true,
    poolSize: 0,
    spares: 0,
    max: 10,
    namespace,
    mediaCacheDir,
    ...overrides,
  });
  const cleanupEngine = new SandboxEngine({ dockerHost: config.dockerHost, networkPool: config.networkPool });
  const driver = deps.driver ?? (deps.engine ? new DockerDriver({ engine: deps.engine }) : createDriver(config));
  const manager = new SandboxManager(config, { siteSource: deps.siteSource, driver });
  return {
    manager,
    config,
    driver,
    engine: cleanupEngine,
    namespace,
    async clientFor(sandboxId) {
      const row = await findSandboxById({ id: sandboxId });
      if (!row) throw new Error(`no sandbox ${sandboxId}`);
      return manager.fleet.clientFor(row);
    },
    async directUrl(sandboxId) {
      const row = await findSandboxById({ id: sandboxId });
      if (!row?.endpoint) throw new Error(`no running sandbox ${sandboxId}`);
      return row.endpoint;
    },
    async cleanup() {
      await manager.close();
      const found = await driver.list(namespace);
      const ids = new Set(found.map((c) => c.sandboxId));
      for (const sandbox of found) await driver.remove(sandbox.handle);
      for (const row of await listSandboxes()) if (ids.has(row.id)) await deleteSandboxRow({ id: row.id });
      rmSync(mediaCacheDir, { recursive: true, force: true });
    },
  };
}
