/**
 * A sandbox's container from start to removal: the image it runs, starting it for a row, provisioning the
 * plugin's credentials, the signed client that reaches it, commands inside it, and removal with its row.
 * The only unit that talks to the engine for sandboxes; the pool, sign-in links, the manager and GC go
 * through its methods (GC through the narrow `SandboxFleet` interface in gc.ts).
 */
import { deleteSandboxRow, findSandboxById, transitionSandbox, updateSandbox } from "@/lib/db/queries";
import type { Sandbox } from "@/lib/db/schema";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import type { SignedSiteClient } from "@/lib/sites/client";
import { decryptSecret, encryptSecret } from "@/lib/sites/crypto";
import { createSandboxClient, type SandboxCredentials, sandboxUrl } from "./client";
import type { ContainerInfo, ExecResult, SandboxEngine } from "./engine";
import type { SandboxFleet } from "./gc";
import { ensureSandboxImage, type ImagePaths, PLUGIN_SLUG, removeStaleImages, WORDPRESS_PATH } from "./image";

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

export type ContainerSettings = {
  /** A prebuilt image to run instead of building ours. */
  image: string | undefined;
  imagePaths: ImagePaths;
  /** Labels this deployment's containers. */
  namespace: string;
  /** The service's URL, written into the sandbox's plugin credentials. */
  appUrl: string;
  /** Refuse sandboxes while the network check finds them not isolated (SANDBOX_REQUIRE_ISOLATION). */
  requireIsolation: boolean;
};

/** What this process last found about the sandbox network (`/health`'s `sandboxPool.network`). */
export type NetworkState = "isolated" | "not_isolated" | "unchecked";

export type IsolationCheck = { isolated: boolean; gateway: string | undefined; outcome: string };

export class SandboxContainers implements SandboxFleet {
  private imageTag?: Promise<string>;
  /** The last network check's result; checked again on each launch until a check finds the network isolated. */
  private isolation?: IsolationCheck;
  private isolationCheck?: Promise<IsolationCheck | undefined>;

  constructor(
    private readonly engine: SandboxEngine,
    private readonly settings: ContainerSettings,
  ) {}

  /** Throws `sandbox_unavailable` (503) when the engine cannot be reached. */
  ping(): Promise<void> {
    return this.engine.ping();
  }

  /** The image tag sandboxes run, built on first use when missing. A failure is retried on the next call. */
  image(): Promise<string> {
    this.imageTag ??= ensureSandboxImage({
      engine: this.engine,
      configuredImage: this.settings.image,
      paths: this.settings.imagePaths,
      progress: (message) => log.info("sandbox image", { message }),
    }).catch((error) => {
      this.imageTag = undefined;
      throw error;
    });
    return this.imageTag;
  }

  /** The image tag in use, once known (undefined while it is still being built or when the build failed). */
  async currentImage(): Promise<string | undefined> {
    return this.imageTag?.catch(() => undefined);
  }

  /** Starts the row's container, waits for a working /wp-json, creates its plugin credentials. */
  async launch(row: Sandbox, finalStatus: "ready" | "pooled"): Promise<Sandbox> {
    const { containerId, hostPort } = await this.engine.run({
      sandboxId: row.id,
      image: row.imageTag,
      namespace: this.settings.namespace,
      owner: row.userId ?? "pool",
      expiresAt: row.expiresAt,
    });
    await updateSandbox({ id: row.id, containerId, hostPort });
    const credentials = await this.provision(containerId, hostPort);
    await this.ensureIsolated(containerId);
    const sealed = encryptSecret(JSON.stringify(credentials), row.id);
    const updated = await transitionSandbox({
      id: row.id,
      from: [row.status],
      to: finalStatus,
      fields: { containerId, hostPort, credentials: sealed },
    });
    if (!updated) {
      // Removed while starting (DELETE or GC): do not leave its container behind.
      await this.engine.remove(containerId).catch(() => {});
      throw new AppError("not_found", "There is no such sandbox in your account.");
    }
    return updated;
  }

  networkState(): NetworkState {
    if (!this.isolation) return "unchecked";
    return this.isolation.isolated ? "isolated" : "not_isolated";
  }

  /**
   * Before a sandbox is handed out: until a check in this process found the network isolated, check it from inside
   * this container (one check at a time; about 2 s, the probe's timeout, when all is well). Not isolated, the
   * launch fails with `sandbox_unavailable` and says what the operator must do, unless SANDBOX_REQUIRE_ISOLATION is
   * false (then it is logged). A check that could not run is logged and retried on the next launch.
   */
  private async ensureIsolated(containerId: string): Promise<void> {
    if (this.isolation?.isolated) return;
    this.isolationCheck ??= this.checkIsolation(containerId)
      .then(
        (check) => {
          this.isolation = check;
          return check;
        },
        (error) => {
          log.warn("could not check the sandbox network", { error });
          return undefined;
        },
      )
      .finally(() => {
        this.isolationCheck = undefined;
      });
    const check = await this.isolationCheck;
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
   * Asks from inside the container whether the host's firewall drops what it starts: a TCP connect to its
   * gateway (the host's side of its bridge) on port 9 (discard), which nothing should listen on. The firewall's
   * DROP makes it time out; an answer — refused or open — means the packet reached the host, so the rules of
   * scripts/setup/sandbox-network.sh are missing for this sandbox's range.
   */
  async checkIsolation(containerId: string): Promise<IsolationCheck> {
    const info = await this.engine.inspect(containerId);
    const gateway = Object.values(info?.NetworkSettings.Networks ?? {})[0]?.Gateway || undefined;
    if (!gateway) return { isolated: false, gateway, outcome: "no gateway: not on a bridge network of its own" };
    const probe = await this.engine.exec(containerId, [
      "php",
      "-r",
      '$s = @fsockopen($argv[1], 9, $code, $message, 2); echo $s ? "open" : "closed $code $message";',
      gateway,
    ]);
    const outcome = probe.stdout.trim();
    // 110 ETIMEDOUT (Linux); PHP reports a timeout with code 0 or 110 depending on the stream layer.
    const timedOut = /^closed (110|0) /.test(outcome) || /timed out/i.test(outcome);
    return { isolated: timedOut, gateway, outcome };
  }

  /** The signed client for a provisioned sandbox (what subsets and the agent use to work in it). */
  clientFor(sandbox: Sandbox): SignedSiteClient {
    if (!sandbox.hostPort || !sandbox.credentials) throw new Error(`sandbox ${sandbox.id} is not provisioned`);
    const credentials = JSON.parse(decryptSecret(sandbox.credentials, sandbox.id)) as SandboxCredentials;
    return createSandboxClient(sandbox.hostPort, credentials);
  }

  /** Runs a command inside the sandbox's container as its unprivileged user. */
  exec(containerId: string, cmd: string[]): Promise<ExecResult> {
    return this.engine.exec(containerId, cmd);
  }

  async isRunning(sandbox: Sandbox): Promise<boolean> {
    if (!sandbox.containerId) return false;
    return this.containerRunning(sandbox.containerId);
  }

  /** Marks the row as going, removes its container, deletes the row (its manifest goes with it). */
  async destroy(sandbox: Sandbox): Promise<void> {
    await transitionSandbox({
      id: sandbox.id,
      from: ["warming", "pooled", "starting", "ready", "removing"],
      to: "removing",
    });
    const current = (await findSandboxById({ id: sandbox.id })) ?? sandbox;
    const containerId = current.containerId ?? sandbox.containerId;
    if (containerId) await this.engine.remove(containerId);
    else {
      // No container id recorded yet: find it by label, in case the engine made it.
      for (const container of await this.engine.list(this.settings.namespace)) {
        if (container.sandboxId === sandbox.id) await this.engine.remove(container.containerId);
      }
    }
    await deleteSandboxRow({ id: sandbox.id });
  }

  // ------------------------------------------------------------------ SandboxFleet (GC)

  /** Every container labelled as this deployment's. */
  listContainers(): Promise<ContainerInfo[]> {
    return this.engine.list(this.settings.namespace);
  }

  removeContainer(containerId: string): Promise<void> {
    return this.engine.remove(containerId);
  }

  /** Removes this deployment's sandbox networks whose sandbox has no container any more. */
  pruneNetworks(liveSandboxIds: Set<string>): Promise<string[]> {
    return this.engine.pruneNetworks(this.settings.namespace, liveSandboxIds);
  }

  async containerRunning(containerId: string): Promise<boolean> {
    const info = await this.engine.inspect(containerId);
    return Boolean(info?.State.Running);
  }

  /** Removes images of ours other than `keep`; nothing when the operator runs their own SANDBOX_IMAGE. */
  async removeStaleImages(keep: string[]): Promise<string[]> {
    if (this.settings.image) return [];
    return removeStaleImages(this.engine, keep);
  }

  // ------------------------------------------------------------------ provisioning

  /**
   * Gets the sandbox's plugin credentials. Fast path: read the single-use provisioning token the entrypoint
   * wrote (a plain `cat` through the engine), then ask the sandbox's must-use plugin for credentials over HTTP:
   * that first request also warms PHP's opcache in the server process and proves /wp-json works. Images
   * without that route (a SANDBOX_IMAGE built elsewhere) get them from the plugin's CLI instead.
   */
  private async provision(containerId: string, hostPort: number): Promise<SandboxCredentials> {
    const token = await this.provisionToken(containerId);
    if (token) {
      const credentials = await provisionOverHttp(hostPort, token, {
        scopes: SANDBOX_SCOPES,
        serviceUrl: this.settings.appUrl,
      });
      if (credentials) return credentials;
    }
    const [, credentials] = await Promise.all([waitForWordPress(hostPort), this.createCredentials(containerId)]);
    return credentials;
  }

  /** The entrypoint prints the token to the container log (cheap to read); the file is the fallback. */
  private async provisionToken(containerId: string): Promise<string | undefined> {
    for (let attempt = 0; attempt < 25; attempt++) {
      const match = /sitewright-provision-token: ([0-9a-f]{64})/.exec(await this.engine.logs(containerId));
      if (match) return match[1];
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const read = await this.engine.exec(containerId, ["cat", "/data/provision-token"]);
    const value = read.stdout.trim();
    return read.exitCode === 0 && /^[0-9a-f]{64}$/.test(value) ? value : undefined;
  }

  private async createCredentials(containerId: string): Promise<SandboxCredentials> {
    const cli = `${WORDPRESS_PATH}/wp-content/plugins/${PLUGIN_SLUG}/bin/sitewright-cli.php`;
    // Runs alongside the first HTTP request; the entrypoint writes the salts a moment after the start.
    const result = await this.engine.exec(containerId, [
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

/**
 * Asks a starting sandbox for its credentials, retrying while PHP is not listening yet. Undefined when the image
 * has no provisioning route (404).
 */
async function provisionOverHttp(
  hostPort: number,
  token: string,
  body: { scopes: string[]; serviceUrl: string },
  timeoutMs = READY_TIMEOUT_MS,
): Promise<SandboxCredentials | undefined> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`${sandboxUrl(hostPort)}/wp-json/sitewright-sandbox/v1/provision`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-sitewright-provision": token },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(20_000),
        redirect: "manual",
      });
      if (response.status === 200) {
        const credentials = (await response.json()) as SandboxCredentials;
        if (typeof credentials.token !== "string" || typeof credentials.secret !== "string")
          throw new Error("malformed credentials");
        return credentials;
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
  throw new Error(`the sandbox on port ${hostPort} did not answer within ${timeoutMs} ms`, { cause: lastError });
}

const isConnectionError = (error: unknown) =>
  error instanceof TypeError &&
  /fetch failed/.test(error.message) &&
  /ECONNREFUSED|ECONNRESET|UND_ERR_SOCKET|other side closed/.test(String((error as { cause?: unknown }).cause));

/** Polls the sandbox until WordPress's REST index answers with its routes. */
export async function waitForWordPress(hostPort: number, timeoutMs = READY_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`${sandboxUrl(hostPort)}/wp-json/`, {
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
  throw new Error(`the sandbox on port ${hostPort} did not answer /wp-json/ within ${timeoutMs} ms`, {
    cause: lastError,
  });
}
