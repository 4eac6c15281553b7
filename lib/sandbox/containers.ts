/**
 * A sandbox from start to removal: the image it runs, starting it for a row, provisioning the plugin's
 * credentials, the signed client that reaches it, commands inside it, and removal with its row. The only unit
 * that talks to the driver (driver.ts: Docker or Kubernetes) for sandboxes; the pool, sign-in links, the manager
 * and GC go through its methods (GC through the narrow `SandboxFleet` interface in gc.ts). It reaches a sandbox
 * only at the endpoint the driver answered and the row stores, never at an address it assumes.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import os from "node:os";
import { now as clockNow } from "@/lib/clock";
import { env } from "@/lib/env";
import {
  deleteSandboxRow,
  findNetworkCheck,
  findSandboxById,
  listNetworkChecks,
  recordNetworkCheck,
  transitionSandbox,
  updateSandbox,
} from "@/lib/db/queries";
import type { Sandbox } from "@/lib/db/schema";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import type { SignedSiteClient } from "@/lib/sites/client";
import { decryptSecret, encryptSecret } from "@/lib/sites/crypto";
import { isMemoryNamespace } from "./config";
import { createSandboxClient, type SandboxCredentials } from "./client";
import { DeploymentImage } from "./deployment-image";
import type { DriverSandbox, ExecResult, SandboxDriver, StartedSandbox } from "./driver";
import { isEngineDown } from "./engine";
import type { SandboxFleet } from "./gc";
import { type ImagePaths, PLUGIN_SLUG, WORDPRESS_PATH } from "./image";
import { previewViewerHash, previewViewerWritten } from "./preview-viewer";
import { timedStep } from "./steps";

/** Every scope: a sandbox is a disposable copy, the agent may do there whatever it may do anywhere. */
export const SANDBOX_SCOPES = [
  "site:read",
  "content:read",
  "content:write",
  "media:write",
  "design:write",
  "settings:write",
];
const READY_TIMEOUT_MS = 30_000;
/** A node found isolated is checked again after this long (the operator may have changed its firewall). */
const ISOLATION_RECHECK_MS = 60 * 60_000;
/** `/health` reports the checks of the last day (a node gone for longer no longer counts). */
const ISOLATION_REPORT_MS = 24 * 60 * 60_000;

export type ContainerSettings = {
  /** A prebuilt image to run instead of building ours. */
  image: string | undefined;
  imagePaths: ImagePaths;
  /** Labels this deployment's sandboxes. */
  namespace: string;
  /** The service's URL, written into the sandbox's plugin credentials. */
  appUrl: string;
  /** Refuse sandboxes while the network check finds them not isolated (SANDBOX_REQUIRE_ISOLATION). */
  requireIsolation: boolean;
  /** The host's ports the network check tries from inside a sandbox (9, the app's, PostgreSQL's). */
  probePorts: number[];
};

/** The worst the network check last found on the deployment's nodes (`/health`'s `sandboxPool.network`). */
export type NetworkState = "isolated" | "not_isolated" | "unchecked";

export type IsolationCheck = { isolated: boolean; gateway: string | undefined; node: string; outcome: string };

/**
 * The network check's probe, run by PHP inside the sandbox (argv: gateway, comma-separated ports, the gateway's
 * IPv6 addresses the host knows). Prints "ipv6 on|off", then one line per connect: "<host> <port> open" or
 * "<host> <port> closed <errno> <why>". The connects run at once, 2 s each. The IPv4 connects make the kernel
 * resolve the gateway's MAC; from it comes the gateway's EUI-64 link-local address on this bridge.
 */
const ISOLATION_PROBE = `
$gateway = $argv[1];
$ports = array_map("intval", explode(",", $argv[2]));
$gateway6 = array_slice($argv, 3);
$pending = []; $labels = []; $deadlines = []; $lines = [];
$start = function (string $host, string $label) use ($ports, &$pending, &$labels, &$deadlines, &$lines) {
  foreach ($ports as $port) {
    $s = @stream_socket_client("tcp://$host:$port", $code, $message, 2, STREAM_CLIENT_CONNECT | STREAM_CLIENT_ASYNC_CONNECT);
    if ($s === false) { $lines[] = "$label $port closed $code $message"; continue; }
    $pending[] = $s; $labels[] = "$label $port"; $deadlines[] = microtime(true) + 2;
  }
};
$start($gateway, $gateway);
// The sandbox's own IPv6 addresses; a new one is tentative (flag 0x40) until duplicate detection ends, about a
// second, and cannot send before: wait for it, or a sandbox with IPv6 on would look closed.
$device = "eth0";
for ($i = 0; $i < 40; $i++) {
  $ipv6 = false; $tentative = false;
  foreach (@file("/proc/net/if_inet6") ?: [] as $line) {
    $f = preg_split("/\\s+/", trim($line));
    if (($f[5] ?? "lo") === "lo") continue;
    $ipv6 = true; $device = $f[5];
    if (hexdec($f[4]) & 0x40) $tentative = true;
  }
  if (!$tentative) break;
  usleep(100000);
}
for ($i = 0; $i < 30; $i++) {
  foreach (@file("/proc/net/arp") ?: [] as $line) {
    $f = preg_split("/\\s+/", trim($line));
    if (($f[0] ?? "") !== $gateway || !preg_match("/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/", $f[3] ?? "") || $f[3] === "00:00:00:00:00:00") continue;
    $device = $f[5] ?? $device;
    $b = array_map("hexdec", explode(":", $f[3]));
    $gateway6[] = sprintf("fe80::%x:%x:%x:%x", (($b[0] ^ 2) << 8) | $b[1], ($b[2] << 8) | 0xff, 0xfe00 | $b[3], ($b[4] << 8) | $b[5]);
    break 2;
  }
  usleep(10000);
}
foreach (array_unique($gateway6) as $address) $start("[$address%$device]", "$address%$device");
while ($pending && ($left = max($deadlines) - microtime(true)) > 0) {
  $read = null; $except = null; $write = $pending;
  if (@stream_select($read, $write, $except, 0, (int) (min($left, 0.05) * 1e6)) === false) break;
  foreach ($write as $i => $s) {
    $lines[] = $labels[$i] . (stream_socket_get_name($s, true) === false ? " closed 111 refused" : " open");
    fclose($s); unset($pending[$i], $deadlines[$i]);
  }
  foreach ($pending as $i => $s) {
    if (microtime(true) < $deadlines[$i]) continue;
    $lines[] = "$labels[$i] closed 110 timed out";
    fclose($s); unset($pending[$i], $deadlines[$i]);
  }
}
echo "ipv6 ", $ipv6 ? "on" : "off", "\n", implode("\n", $lines), "\n";
`;

/** The host's side of a sandbox's bridge, when the engine runs on this host. */
type HostBridge = { device: string; addresses: string[]; ready: boolean };

/**
 * The host's interface that holds `gateway` (the sandbox's bridge): its link-local addresses, and whether they are
 * usable. A new bridge's address is tentative (duplicate detection) for about two seconds after its first
 * container starts (measured): until then nothing answers at it, so a probe's timeout there proves nothing.
 * Undefined when no interface here holds the gateway (the engine runs elsewhere).
 */
function hostBridge(gateway: string): HostBridge | undefined {
  for (const [device, addresses] of Object.entries(os.networkInterfaces())) {
    if (!addresses?.some((a) => a.family === "IPv4" && a.address === gateway)) continue;
    const linkLocal = addresses
      .filter((a) => a.family === "IPv6" && /^fe80:/i.test(a.address))
      .map((a) => a.address.split("%")[0]!);
    let tentative = false;
    try {
      // "<address> <index> <prefix> <scope> <flags> <device>"; flag 0x40: tentative.
      for (const line of readFileSync("/proc/net/if_inet6", "utf8").trim().split("\n")) {
        const [, , , scope, flags, name] = line.trim().split(/\s+/);
        if (name === device && scope === "20" && (Number.parseInt(flags ?? "0", 16) & 0x40) !== 0) tentative = true;
      }
    } catch {
      // No IPv6 on this host: nothing to wait for.
    }
    return { device, addresses: linkLocal, ready: linkLocal.length > 0 && !tentative };
  }
  return undefined;
}

async function readyHostBridge(gateway: string, timeoutMs = 5_000): Promise<HostBridge | undefined> {
  const deadline = Date.now() + timeoutMs;
  let bridge = hostBridge(gateway);
  while (bridge && !bridge.ready && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    bridge = hostBridge(gateway);
  }
  return bridge;
}

export class SandboxContainers implements SandboxFleet {
  private readonly images: DeploymentImage;
  /** Network checks under way in this process, by node (one at a time per node). */
  private readonly isolationChecks = new Map<string, Promise<IsolationCheck | undefined>>();
  /** When this process last saw each node isolated (spares a launch the data layer's read). */
  private readonly isolatedAt = new Map<string, number>();

  constructor(
    private readonly driver: SandboxDriver,
    private readonly settings: ContainerSettings,
    private readonly now: () => Date = clockNow,
  ) {
    this.images = new DeploymentImage(driver, settings, now);
  }

  /** Throws `sandbox_unavailable` (503) when the engine or cluster cannot be reached. */
  ping(): Promise<void> {
    return this.driver.ping();
  }

  /** The image tag sandboxes start from: the deployment's (deployment-image.ts). */
  image(): Promise<string> {
    return this.images.image();
  }

  /** The deployment's image tag, once one is known. */
  currentImage(): Promise<string | undefined> {
    return this.images.current();
  }

  /**
   * Starts the row's sandbox (the prepared `spare` made for this row's id, when given: spares.ts), stores where it
   * answers (endpoint, node, driver), waits for a working /wp-json, creates its plugin credentials.
   */
  async launch(row: Sandbox, finalStatus: "ready" | "pooled", spare?: { handle: string }): Promise<Sandbox> {
    const started = await this.startFor(row, spare);
    const placed = {
      containerId: started.handle,
      endpoint: started.endpoint,
      node: started.node,
      driver: this.driver.name,
    };
    // Where it answers is stored while it provisions, so a removal meanwhile finds its handle.
    const [, { credentials }] = await Promise.all([
      updateSandbox({ id: row.id, ...placed }),
      timedStep(
        "first_request",
        row.id,
        () => this.provision(row.id, started),
        (provisioned) => provisioned.scripts,
      ),
    ]);
    await timedStep("isolation", row.id, () => this.ensureIsolated(started.handle, started.node));
    const sealed = encryptSecret(JSON.stringify(credentials), row.id);
    const updated = await transitionSandbox({
      id: row.id,
      from: [row.status],
      to: finalStatus,
      fields: { ...placed, credentials: sealed },
    });
    if (!updated) {
      // Removed while starting (DELETE or GC): do not leave it behind.
      await this.driver.remove(started.handle).catch(() => {});
      throw new AppError("not_found", "There is no such sandbox in your account.");
    }
    return updated;
  }

  /** Starts the prepared spare; when it cannot be (GC took it, the engine lost it), a sandbox made from scratch. */
  private async startFor(row: Sandbox, spare: { handle: string } | undefined): Promise<StartedSandbox> {
    if (spare && this.driver.startPrepared) {
      try {
        return await this.driver.startPrepared(spare.handle, row.id);
      } catch (error) {
        if (isEngineDown(error)) throw error;
        log.warn("a prepared sandbox could not start: making one from scratch", { sandboxId: row.id, error });
        await this.driver.removeLeftovers(row.id).catch(() => {});
      }
    }
    return this.driver.start({
      sandboxId: row.id,
      image: row.imageTag,
      namespace: this.settings.namespace,
      owner: row.userId ?? "pool",
      expiresAt: row.expiresAt,
    });
  }

  /** Creates a sandbox's network and container ahead, unstarted (spares.ts); undefined when the driver cannot. */
  async prepare(spec: { sandboxId: string; image: string; owner: string; expiresAt: Date }) {
    if (!this.driver.prepare) return undefined;
    return this.driver.prepare({ ...spec, namespace: this.settings.namespace });
  }

  /** Whether the driver can prepare sandboxes ahead (docker: yes; Kubernetes: a pod starts when made). */
  get canPrepare(): boolean {
    return Boolean(this.driver.prepare && this.driver.startPrepared);
  }

  /**
   * Makes sure the network check of this host is fresh for the next `aheadMs` at least, ahead of any request:
   * when this process knows of no isolated check that young, it starts a throwaway sandbox (never handed out),
   * checks from inside it (or takes another instance's recent check), and removes it. A cold start then never
   * waits for the probe.
   */
  async checkIsolationAhead(aheadMs: number, image: string): Promise<void> {
    const fresh = this.now().getTime() - (ISOLATION_RECHECK_MS - aheadMs);
    if ([...this.isolatedAt.values()].some((at) => at > fresh)) return;
    const sandboxId = randomUUID();
    const expiresAt = new Date(this.now().getTime() + 5 * 60_000);
    const started = await this.driver.start({
      sandboxId,
      image,
      namespace: this.settings.namespace,
      owner: "probe",
      expiresAt,
    });
    try {
      await this.ensureIsolated(started.handle, started.node, ISOLATION_RECHECK_MS - aheadMs);
    } finally {
      await this.driver.remove(started.handle).catch(() => {});
      await this.driver.removeLeftovers(sandboxId).catch(() => {});
    }
  }

  /** The worst state among the deployment's nodes checked in the last day: one open node is `not_isolated`. */
  /**
   * A claimed pool member takes its user's expiry on the driver too (a pod's deadline), so it ends on time with
   * every app instance down. A sandbox the driver no longer has is not usable: false.
   */
  async setExpiry(sandbox: Sandbox): Promise<boolean> {
    if (!sandbox.containerId || !this.driver.setExpiry) return true;
    return this.driver.setExpiry(sandbox.containerId, sandbox.expiresAt);
  }

  async networkState(): Promise<NetworkState> {
    const since = new Date(this.now().getTime() - ISOLATION_REPORT_MS);
    const checks = await listNetworkChecks({ namespace: this.settings.namespace, since });
    if (checks.length === 0) return "unchecked";
    return checks.every((check) => check.isolated) ? "isolated" : "not_isolated";
  }

  /**
   * Before a sandbox is handed out: unless the data layer knows its node isolated (checked by any app instance in
   * the last hour), check from inside this sandbox (one check per node at a time in a process; about 2 s, the
   * probe's timeout, when all is well). Not isolated, the launch fails with `sandbox_unavailable` and says what the
   * operator must do, unless SANDBOX_REQUIRE_ISOLATION is false (then it is logged). A check that could not run is
   * logged and retried on the next launch.
   */
  private async ensureIsolated(handle: string, node: string, recheckMs = ISOLATION_RECHECK_MS): Promise<void> {
    const since = this.now().getTime() - recheckMs;
    if ((this.isolatedAt.get(node) ?? 0) > since) return;
    const known = await findNetworkCheck({
      namespace: this.settings.namespace,
      driver: this.driver.name,
      node,
      since: new Date(since),
    });
    if (known?.isolated) {
      this.isolatedAt.set(node, known.checkedAt.getTime());
      return;
    }
    let pending = this.isolationChecks.get(node);
    if (!pending) {
      pending = this.checkIsolation(handle)
        .then(
          (check) => check,
          (error) => {
            log.warn("could not check the sandbox network", { node, error });
            return undefined;
          },
        )
        .finally(() => this.isolationChecks.delete(node));
      this.isolationChecks.set(node, pending);
    }
    const check = await pending;
    if (!check || check.isolated) return;
    log.error("sandbox network is not isolated: run scripts/setup/sandbox-network.sh (docs/operations.md)", {
      ...check,
      refused: this.settings.requireIsolation,
    });
    if (this.settings.requireIsolation) {
      throw new AppError(
        "sandbox_unavailable",
        "Sandboxes are off on this service until their network is isolated. The operator runs scripts/setup/sandbox-network.sh (docs/operations.md).",
        { headers: { "Retry-After": "60" } },
      );
    }
  }

  /**
   * Asks from inside the container whether the host's firewall drops what it starts, over every address family:
   * TCP connects, all at once, to its gateway (the host's side of its bridge) on the probe ports (9, the app's
   * port, PostgreSQL's) over IPv4, and over IPv6 to the gateway's link-local `fe80::…%eth0` address (known to the
   * host when the engine runs here, and derived inside from the gateway's MAC). Isolated means every IPv4 connect
   * timed out (the firewall's DROP) and every IPv6 one timed out or found no IPv6 in the sandbox; an answer —
   * refused or open — means the packet reached the host. With IPv6 on in the sandbox a timeout proves the DROP
   * only at an address known to answer: the gateway must be on this host with its address out of duplicate
   * detection (else it is waited for and the probe run again), or it counts as not isolated. The result is what
   * result is recorded for the sandbox's node (what `networkState()` reports, and what spares the node's next
   * sandboxes the check).
   */
  async checkIsolation(handle: string): Promise<IsolationCheck> {
    const target = await this.driver.isolationTarget(handle);
    const check = { ...(await this.probeIsolation(handle, target.gateway)), node: target.node };
    if (check.isolated) this.isolatedAt.set(check.node, this.now().getTime());
    else this.isolatedAt.delete(check.node);
    await recordNetworkCheck({
      namespace: this.settings.namespace,
      driver: this.driver.name,
      node: check.node,
      isolated: check.isolated,
      outcome: check.outcome,
      checkedAt: this.now(),
    });
    return check;
  }

  private async probeIsolation(handle: string, gateway: string | undefined): Promise<Omit<IsolationCheck, "node">> {
    if (!gateway) return { isolated: false, gateway, outcome: "no gateway: not on a network of its own" };
    const bridge = hostBridge(gateway);
    let probe = await this.runIsolationProbe(handle, gateway, bridge);
    if (probe.ipv6 && bridge && !bridge.ready) {
      // IPv6 is on in the sandbox and the gateway's address was not usable yet: ask again once it is.
      const ready = await readyHostBridge(gateway);
      if (ready?.ready) probe = await this.runIsolationProbe(handle, gateway, ready);
      else return { isolated: false, gateway, outcome: `${probe.outcome}; the gateway's IPv6 address never came up` };
    }
    const { ipv6, results, outcome } = probe;
    if (ipv6 && !bridge) {
      // With IPv6 on, only timeouts at an address known to answer prove the DROP: from elsewhere, nothing does.
      return { isolated: false, gateway, outcome: `${outcome}; IPv6 is on and the gateway is not on this host` };
    }
    // 110 ETIMEDOUT; PHP reports a timeout with code 0 or 110 depending on the stream layer.
    const timedOut = (r: { outcome: string }) => /^closed (110|0) /.test(r.outcome) || /timed out/i.test(r.outcome);
    // 97 EAFNOSUPPORT, 99 EADDRNOTAVAIL, 101 ENETUNREACH: the sandbox has no IPv6 to send with. With IPv6 on in
    // the sandbox, only the firewall's DROP (a timeout) counts.
    const noIpv6 = (r: { outcome: string }) => !ipv6 && /^closed (97|99|101) /.test(r.outcome);
    const v4 = results.filter((r) => r.family === 4);
    const v6 = results.filter((r) => r.family === 6);
    const v4Closed = v4.length > 0 && v4.every(timedOut);
    const v6Closed = v6.length > 0 ? v6.every((r) => timedOut(r) || noIpv6(r)) : !ipv6;
    return { isolated: v4Closed && v6Closed, gateway, outcome };
  }

  private async runIsolationProbe(handle: string, gateway: string, bridge: HostBridge | undefined) {
    const probe = await this.driver.exec(handle, [
      "php",
      "-r",
      ISOLATION_PROBE,
      gateway,
      this.settings.probePorts.join(","),
      ...(bridge?.addresses ?? []),
    ]);
    const lines = probe.stdout.trim().split("\n");
    if (probe.exitCode !== 0 || !/^ipv6 (on|off)$/.test(lines[0] ?? "")) {
      throw new Error(`the isolation probe failed (exit ${probe.exitCode}): ${probe.stderr.trim().slice(0, 300)}`);
    }
    const results = lines.slice(1).map((line) => {
      const [host = "", port = "", ...rest] = line.split(" ");
      return { host, port, family: host.includes(":") ? 6 : 4, outcome: rest.join(" ") };
    });
    return {
      ipv6: lines[0] === "ipv6 on",
      results,
      outcome: [lines[0], ...results.map((r) => `${r.host} ${r.port} ${r.outcome}`)].join("; "),
    };
  }

  /** The signed client for a provisioned sandbox (what subsets and the agent use to work in it). */
  clientFor(sandbox: Sandbox): SignedSiteClient {
    if (!sandbox.endpoint || !sandbox.credentials) throw new Error(`sandbox ${sandbox.id} is not provisioned`);
    const credentials = JSON.parse(decryptSecret(sandbox.credentials, sandbox.id)) as SandboxCredentials;
    return createSandboxClient(sandbox.endpoint, credentials);
  }

  /** Runs a command inside the sandbox as its unprivileged user. */
  exec(handle: string, cmd: string[]): Promise<ExecResult> {
    return this.driver.exec(handle, cmd);
  }

  async isRunning(sandbox: Sandbox): Promise<boolean> {
    if (!sandbox.containerId || !this.drives(sandbox)) return false;
    return this.containerRunning(sandbox.containerId);
  }

  /** Marks the row as going, removes its sandbox, deletes the row (its manifest goes with it). */
  async destroy(sandbox: Sandbox): Promise<void> {
    await transitionSandbox({
      id: sandbox.id,
      from: ["warming", "pooled", "starting", "ready", "removing"],
      to: "removing",
    });
    const current = (await findSandboxById({ id: sandbox.id })) ?? sandbox;
    if (this.drives(current)) await this.removeRunning(sandbox.id, current.containerId ?? sandbox.containerId);
    else log.warn("a sandbox of another driver cannot be removed from here", { sandboxId: sandbox.id });
    await deleteSandboxRow({ id: sandbox.id });
  }

  /** Whether this process's driver runs the row's sandbox (rows from before drivers were stored ran on docker). */
  private drives(sandbox: Sandbox): boolean {
    return (sandbox.driver ?? "docker") === this.driver.name;
  }

  private async removeRunning(sandboxId: string, handle: string | null): Promise<void> {
    if (handle) await this.driver.remove(handle);
    else {
      // No handle recorded yet: find it by label, in case the driver made it.
      for (const found of await this.driver.list(this.settings.namespace)) {
        if (found.sandboxId === sandboxId) await this.driver.remove(found.handle);
      }
    }
    // One that vanished (removed behind our back) left its network or policy: the removal above could not see it.
    await this.driver
      .removeLeftovers(sandboxId)
      .catch((error) => log.warn("could not remove a sandbox's leftovers", { sandboxId, error }));
  }

  // ------------------------------------------------------------------ SandboxFleet (GC)

  /** Every sandbox the driver has labelled as this deployment's. */
  listContainers(): Promise<DriverSandbox[]> {
    return this.driver.list(this.settings.namespace);
  }

  async listOtherMemoryContainers(): Promise<DriverSandbox[]> {
    if (!isMemoryNamespace(this.settings.namespace)) return [];
    return (await this.driver.list()).filter(
      (found) => isMemoryNamespace(found.namespace) && found.namespace !== this.settings.namespace,
    );
  }

  removeContainer(handle: string): Promise<void> {
    return this.driver.remove(handle);
  }

  /** Removes this deployment's sandbox networks (policies) whose sandbox is gone. */
  pruneNetworks(liveSandboxIds: Set<string>): Promise<string[]> {
    return this.driver.pruneLeftovers(this.settings.namespace, liveSandboxIds);
  }

  containerRunning(handle: string): Promise<boolean> {
    return this.driver.isRunning(handle);
  }

  /** Removes images of ours other than `keep` (docker only; nothing when the operator runs their own). */
  removeStaleImages(keep: string[]): Promise<string[]> {
    return this.images.removeStale(keep);
  }

  // ------------------------------------------------------------------ provisioning

  /**
   * Gets the sandbox's plugin credentials. Fast path: read the single-use provisioning token the entrypoint
   * wrote (a plain `cat` through the engine), then ask the sandbox's must-use plugin for credentials over HTTP:
   * that first request also warms PHP's opcache in the server process and proves /wp-json works (its answer says
   * how many scripts PHP compiled for it and how many it took compiled from the image's file cache). Images
   * without that route (a SANDBOX_IMAGE built elsewhere) get them from the plugin's CLI instead.
   */
  private async provision(sandboxId: string, { handle, endpoint }: StartedSandbox): Promise<Provisioned> {
    const token = await this.provisionToken(handle);
    if (token) {
      // The owner's preview token's hash goes along, so their first page needs no exec to write it (preview-viewer.ts).
      const viewer = previewViewerHash(env().SESSION_SECRET, sandboxId);
      const provisioned = await provisionOverHttp(endpoint, token, {
        scopes: SANDBOX_SCOPES,
        serviceUrl: this.settings.appUrl,
        viewer,
      });
      if (provisioned?.viewer) previewViewerWritten(handle, viewer);
      if (provisioned) return provisioned;
    }
    const [, credentials] = await Promise.all([waitForWordPress(endpoint), this.createCredentials(handle)]);
    return { credentials };
  }

  /** The entrypoint prints the token to the container log (cheap to read); the file is the fallback. */
  private async provisionToken(handle: string): Promise<string | undefined> {
    for (let attempt = 0; attempt < 25; attempt++) {
      const match = /sitewright-provision-token: ([0-9a-f]{64})/.exec(await this.driver.logs(handle));
      if (match) return match[1];
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const read = await this.driver.exec(handle, ["cat", "/data/provision-token"]);
    const value = read.stdout.trim();
    return read.exitCode === 0 && /^[0-9a-f]{64}$/.test(value) ? value : undefined;
  }

  private async createCredentials(handle: string): Promise<SandboxCredentials> {
    const cli = `${WORDPRESS_PATH}/wp-content/plugins/${PLUGIN_SLUG}/bin/sitewright-cli.php`;
    // Runs alongside the first HTTP request; the entrypoint writes the salts a moment after the start.
    const result = await this.driver.exec(handle, [
      "sh",
      "-c",
      'i=0; while [ ! -f /data/salts.php ] && [ $i -lt 200 ]; do sleep 0.02; i=$((i+1)); done; exec php "$@"',
      "sh",
      cli,
      `--wp=${WORDPRESS_PATH}`,
      "create-credentials",
      `--scopes=${SANDBOX_SCOPES.join(",")}`,
      `--service-url=${this.settings.appUrl}`,
    ]);
    const line = result.stdout.trim().split("\n").pop() ?? "";
    if (result.exitCode !== 0 || !line.startsWith("{")) {
      throw new Error(
        `the sandbox's plugin did not create credentials (exit ${result.exitCode}): ${result.stderr.trim().slice(0, 500)}`,
      );
    }
    const parsed = JSON.parse(line) as SandboxCredentials;
    if (typeof parsed.token !== "string" || typeof parsed.secret !== "string")
      throw new Error("the plugin's credentials are malformed");
    return parsed;
  }
}

/** What the sandbox's first request did with PHP's scripts (the must-use plugin's `sitewright_sandbox_scripts`). */
type FirstRequestScripts = { compiled: number; cached: number; fileCache: boolean };

type Provisioned = { credentials: SandboxCredentials; viewer?: boolean; scripts?: FirstRequestScripts };

/**
 * Asks a starting sandbox for its credentials, retrying while PHP is not listening yet. Undefined when the image
 * has no provisioning route (404).
 */
async function provisionOverHttp(
  endpoint: string,
  token: string,
  body: { scopes: string[]; serviceUrl: string; viewer: string },
  timeoutMs = READY_TIMEOUT_MS,
): Promise<Provisioned | undefined> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`${endpoint}/wp-json/sitewright-sandbox/v1/provision`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-sitewright-provision": token },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(20_000),
        redirect: "manual",
      });
      if (response.status === 200) {
        const { token, secret, scopes, viewer, scripts } = (await response.json()) as SandboxCredentials & {
          viewer?: boolean;
          scripts?: FirstRequestScripts | null;
        };
        if (typeof token !== "string" || typeof secret !== "string") throw new Error("malformed credentials");
        return { credentials: { token, secret, scopes }, viewer: viewer === true, ...(scripts ? { scripts } : {}) };
      }
      const text = await response.text();
      if (response.status === 404 && text.includes("rest_no_route")) return undefined;
      if (response.status !== 503) throw new Error(`provisioning answered ${response.status}: ${text.slice(0, 300)}`);
    } catch (error) {
      if (!isConnectionError(error)) throw error;
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
  throw new Error(`the sandbox at ${endpoint} did not answer within ${timeoutMs} ms`, { cause: lastError });
}

const isConnectionError = (error: unknown) =>
  error instanceof TypeError &&
  /fetch failed/.test(error.message) &&
  /ECONNREFUSED|ECONNRESET|UND_ERR_SOCKET|other side closed/.test(String((error as { cause?: unknown }).cause));

/** Polls the sandbox until WordPress's REST index answers with its routes. */
export async function waitForWordPress(endpoint: string, timeoutMs = READY_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`${endpoint}/wp-json/`, {
        signal: AbortSignal.timeout(5_000),
        redirect: "manual",
      });
      if (response.status === 200) {
        const body = (await response.json()) as { namespaces?: unknown };
        if (Array.isArray(body.namespaces)) return;
      } else {
        await response.body?.cancel();
      }
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
  throw new Error(`the sandbox at ${endpoint} did not answer /wp-json/ within ${timeoutMs} ms`, {
    cause: lastError,
  });
}
