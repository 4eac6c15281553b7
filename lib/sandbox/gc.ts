/**
 * Garbage collection: expired and idle sandboxes, stuck half-made ones, containers labelled as ours with no
 * record (after a crash), in memory other in-memory processes' containers long past their expiry, records whose
 * container vanished, and stale media cache. It removes only this deployment's containers otherwise. Runs at start and on an
 * interval; with several app instances, only the holder of the `sandbox-gc` lease does the work.
 */
import { existingSandboxIds, listSandboxes, listSandboxesToCollect, takeSandboxLease } from "@/lib/db/queries";
import { now as clockNow } from "@/lib/clock";
import { log } from "@/lib/log";
import type { Sandbox } from "@/lib/db/schema";
import type { DriverSandbox } from "./driver";
import { pruneMediaCache } from "./media-proxy";
import { SPARE_OWNER } from "./spares";

export const GC_LEASE = "sandbox-gc";
/** A sandbox still being made after this long is taken as stuck (its maker died). */
const STUCK_MS = 5 * 60_000;
/** A record whose container vanished is dropped only when older than this (its container may be starting). */
const VANISHED_GRACE_MS = 60_000;

export type GcReport = {
  skipped: boolean;
  removed: string[];
  orphans: string[];
  networksRemoved: string[];
  vanished: string[];
  /** Other in-memory deployments' containers, removed past their expiry and the grace. */
  abandoned: string[];
  cacheFilesRemoved: number;
  imagesRemoved: string[];
};

/**
 * What GC needs from the containers unit: this deployment's sandboxes as the driver lists them (containers, pods),
 * removal, the image in use.
 */
export interface SandboxFleet {
  listContainers(): Promise<DriverSandbox[]>;
  /** In memory: other in-memory deployments' sandboxes (their process may be gone); none otherwise. */
  listOtherMemoryContainers(): Promise<DriverSandbox[]>;
  removeContainer(handle: string): Promise<void>;
  /** Removes sandbox networks (policies) of ours with no sandbox among `liveSandboxIds` (older than a minute). */
  pruneNetworks(liveSandboxIds: Set<string>): Promise<string[]>;
  containerRunning(handle: string): Promise<boolean>;
  /** Removes a sandbox: its row goes to `removing`, its container, then its row. */
  destroy(sandbox: Sandbox): Promise<void>;
  currentImage(): Promise<string | undefined>;
  /** Removes our images other than `keep` (none when the operator supplies SANDBOX_IMAGE). */
  removeStaleImages(keep: string[]): Promise<string[]>;
}

export type GcPolicy = {
  enabled: boolean;
  intervalMs: number;
  idleMinutes: number;
  mediaCacheDir: string;
  mediaCacheBytes: number;
  /**
   * How long past its label's expiry another in-memory deployment's container is left alone. A pool member's label
   * carries its pool expiry, and once taken it may live a whole sandbox lifetime beyond that.
   */
  abandonedGraceMs: number;
};

/** What one collection is given: who collects (the lease holder), by which policy, over which fleet. */
export interface Collectable {
  readonly holder: string;
  readonly gcPolicy: GcPolicy;
  readonly fleet: SandboxFleet;
}

type GcRun = { policy: GcPolicy; fleet: SandboxFleet; now: Date; report: GcReport };

/** 1. Records past their time: expired, idle, or stuck while being made. */
async function removeDueSandboxes({ policy, fleet, now, report }: GcRun) {
  const due = await listSandboxesToCollect({
    now,
    idleBefore: new Date(now.getTime() - policy.idleMinutes * 60_000),
    stuckBefore: new Date(now.getTime() - STUCK_MS),
  });
  for (const sandbox of due) {
    try {
      await fleet.destroy(sandbox);
      report.removed.push(sandbox.id);
    } catch (error) {
      log.warn("sandbox GC could not remove a sandbox", { sandboxId: sandbox.id, error });
    }
  }
}

/**
 * Containers that have no record by design until their label's expiry: an instance's spares (spares.ts) and its
 * throwaway network-check sandbox. Past it they are orphans like any other (their process died holding them).
 */
const AHEAD_OWNERS = new Set([SPARE_OWNER, "probe"]);
const madeAhead = (container: DriverSandbox, now: Date) =>
  AHEAD_OWNERS.has(container.owner) && container.expiresAt !== undefined && container.expiresAt > now;

/** 2. Containers labelled as this deployment's with no record: left behind by a crash. */
async function removeOrphans({ fleet, now, report }: GcRun, containers: DriverSandbox[]) {
  const known = await existingSandboxIds({ ids: containers.map((c) => c.sandboxId) });
  for (const container of containers) {
    if (known.has(container.sandboxId) || madeAhead(container, now)) continue;
    await fleet.removeContainer(container.handle);
    report.orphans.push(container.sandboxId);
  }
}

/**
 * 2a. In memory, another in-memory process's containers once past their expiry and the grace: that process keeps
 * its records to itself and may be gone for good, so nothing else would ever remove them. Never sooner: it may
 * be alive, and its pool is its own.
 */
async function removeAbandoned({ policy, fleet, now, report }: GcRun) {
  for (const container of await fleet.listOtherMemoryContainers()) {
    if (!container.expiresAt || now.getTime() - container.expiresAt.getTime() < policy.abandonedGraceMs) continue;
    try {
      await fleet.removeContainer(container.handle);
      report.abandoned.push(container.sandboxId);
    } catch (error) {
      log.warn("sandbox GC could not remove an abandoned container", { sandboxId: container.sandboxId, error });
    }
  }
}

/** 3. Records whose container is gone (engine restarted, container killed): nothing to keep them for. */
async function dropVanished({ fleet, now, report }: GcRun, containers: DriverSandbox[]) {
  const running = new Set(containers.filter((c) => c.running).map((c) => c.sandboxId));
  for (const sandbox of await listSandboxes()) {
    if (running.has(sandbox.id) || !["pooled", "ready"].includes(sandbox.status)) continue;
    if (now.getTime() - sandbox.createdAt.getTime() < VANISHED_GRACE_MS) continue;
    // Asked directly, not by label: a container labelled with another spelling of this deployment still counts.
    if (sandbox.containerId && (await fleet.containerRunning(sandbox.containerId))) continue;
    try {
      await fleet.destroy(sandbox);
      report.vanished.push(sandbox.id);
    } catch (error) {
      log.warn("sandbox GC could not drop a vanished sandbox", { sandboxId: sandbox.id, error });
    }
  }
}

/** 4. Pool members made from an older image (after an upgrade) give way to fresh ones; unused old images go. */
async function retireOldImages({ fleet, report }: GcRun) {
  const currentImage = await fleet.currentImage();
  if (!currentImage) return;
  for (const sandbox of await listSandboxes()) {
    if (sandbox.status !== "pooled" || sandbox.imageTag === currentImage) continue;
    await fleet
      .destroy(sandbox)
      .catch((error) => log.warn("sandbox GC could not retire a pooled sandbox", { sandboxId: sandbox.id, error }));
    report.removed.push(sandbox.id);
  }
  report.imagesRemoved = await fleet.removeStaleImages([currentImage]);
}

/** Only the holder of the GC lease collects, for a little less than one interval. */
function takeGcLease(target: Collectable, now: Date) {
  return takeSandboxLease({
    name: GC_LEASE,
    holder: target.holder,
    now,
    until: new Date(now.getTime() + Math.max(10_000, Math.floor(target.gcPolicy.intervalMs * 0.9))),
  });
}

export async function collectGarbage(target: Collectable, options: { now?: Date } = {}): Promise<GcReport> {
  const report: GcReport = {
    skipped: false,
    removed: [],
    orphans: [],
    networksRemoved: [],
    vanished: [],
    abandoned: [],
    cacheFilesRemoved: 0,
    imagesRemoved: [],
  };
  const { gcPolicy: policy, fleet } = target;
  if (!policy.enabled) return { ...report, skipped: true };
  const now = options.now ?? clockNow();
  if (!(await takeGcLease(target, now))) return { ...report, skipped: true };
  const run: GcRun = { policy, fleet, now, report };

  await removeDueSandboxes(run);
  const containers = await fleet.listContainers();
  await removeOrphans(run, containers);
  await removeAbandoned(run);
  // 2b. Sandbox networks whose container is gone (removed by hand, or a crash between the two).
  const remaining = new Set(containers.filter((c) => !report.orphans.includes(c.sandboxId)).map((c) => c.sandboxId));
  report.networksRemoved = await fleet.pruneNetworks(remaining);
  await dropVanished(run, containers);
  await retireOldImages(run);
  // 5. Media cache: older than a week, then oldest first down to the cap.
  report.cacheFilesRemoved = await pruneMediaCache({
    cacheDir: policy.mediaCacheDir,
    maxBytes: policy.mediaCacheBytes,
    now,
  });

  if (
    report.removed.length ||
    report.orphans.length ||
    report.networksRemoved.length ||
    report.vanished.length ||
    report.abandoned.length ||
    report.imagesRemoved.length
  )
    log.info("sandbox GC", { ...report });
  return report;
}
