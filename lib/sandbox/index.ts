/**
 * The process's sandbox manager, wired to the app: configuration from the environment, subsets from the user's
 * paired sites (lib/sites). Background work (image, warm pool, GC) starts on first use.
 */
import { siteClientFor } from "@/lib/sites/sites";
import { findSiteWithRole } from "@/lib/db/queries";
import { AppError } from "@/lib/errors";
import { sandboxConfig } from "./config";
import { collectGarbage } from "./gc";
import { SandboxManager, type SiteSource } from "./sandboxes";
import { processState } from "@/lib/process-state";

export { SandboxManager } from "./sandboxes";
export type { RehearsalSandboxAccess, SandboxView } from "./sandboxes";

/** The owner's site, or one shared with a member who may propose (an editor's sandbox-mode chat copies it too). */
const pairedSiteSource: SiteSource = async ({ userId, siteId }) => {
  const found = await findSiteWithRole({ userId, siteId });
  if (!found) throw new AppError("not_found", "There is no such site in your account.");
  if (found.role === "viewer") throw new AppError("forbidden", "Your role on this site does not allow that.");
  const site = found.site;
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
