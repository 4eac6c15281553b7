/**
 * The process's sandbox manager, wired to the app: configuration from the environment, subsets from the user's
 * paired sites (lib/sites). Background work (image, warm pool, GC) starts on first use.
 */
import { getOwnedSite, siteClientFor } from "@/lib/sites/sites";
import { sandboxConfig } from "./config";
import { collectGarbage } from "./gc";
import { SandboxManager, type SiteSource } from "./sandboxes";
import { processState } from "@/lib/process-state";

export { SandboxManager } from "./sandboxes";
export type { RehearsalSandboxAccess, SandboxView } from "./sandboxes";

const pairedSiteSource: SiteSource = async ({ userId, siteId }) => {
  const site = await getOwnedSite({ userId, siteId });
  return { client: siteClientFor(site), site: { id: site.id, url: site.url } };
};

type Holder = { manager?: SandboxManager; fromEnvironment?: boolean };
const holder = processState<Holder>("sandboxes", () => ({}));

export function getSandboxManager(): SandboxManager {
  if (!holder.manager) {
    const manager = new SandboxManager(sandboxConfig(), { siteSource: pairedSiteSource });
    manager.startBackground(() => collectGarbage(manager));
    holder.manager = manager;
    holder.fromEnvironment = true;
  }
  return holder.manager;
}

/** Starts sandboxes' background work at boot (instrumentation), so the pool is warm before the first request. */
export function startSandboxes() {
  if (sandboxConfig().enabled) getSandboxManager();
}

/** Tests install their own manager (or none, to get a fresh one from the environment). */
export async function setSandboxManagerForTests(manager: SandboxManager | undefined) {
  // Only the manager this module made is ours to stop; a test's own manager is closed by that test.
  if (holder.manager && holder.fromEnvironment && holder.manager !== manager) await holder.manager.close();
  holder.manager = manager;
  holder.fromEnvironment = false;
}
