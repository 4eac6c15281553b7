/**
 * Sandboxes for sessions: the warm pool, cold starts, capacity, subsets, manifests, sign-in links and removal.
 * One `SandboxManager` per process (see `getSandboxManager`); every decision that must hold across app
 * instances is made in the database (lib/db/queries/sandboxes.ts).
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { now as clockNow } from "@/lib/clock";
import {
  claimSandboxForUser,
  deleteSandboxRow,
  findSandboxById,
  findSandboxForUser,
  findSandboxManifest,
  reservePoolSlot,
  touchSandbox,
  transitionSandbox,
  updateSandbox,
  upsertSandboxManifest,
} from "@/lib/db/queries";
import type { Sandbox, SandboxManifest } from "@/lib/db/schema";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { decryptSecret, encryptSecret } from "@/lib/sites/crypto";
import type { SignedSiteClient } from "@/lib/sites/client";
import type { SiteClient } from "@/lib/sites/types";
import { createSandboxClient, sandboxUrl, type SandboxCredentials } from "./client";
import type { SandboxConfig } from "./config";
import { isEngineDown, SandboxEngine, sandboxUnavailable } from "./engine";
import { defaultImagePaths, ensureSandboxImage, PLUGIN_SLUG, WORDPRESS_PATH, type ImagePaths } from "./image";
import { copySubset, defaultSubsetIds } from "./subset";

/** Every scope: a sandbox is a disposable copy, the agent may do there whatever it may do anywhere. */
export const SANDBOX_SCOPES = ["site:read", "content:read", "content:write", "media:write", "design:write", "settings:write"];
const READY_TIMEOUT_MS = 30_000;
const LOGIN_LINK_SECONDS = 120;

/** How the manager reaches a user's paired site for a subset (lib/sites in the app; injected in tests). */
export type SiteSource = (input: { userId: string; siteId: string }) => Promise<{ client: SiteClient; site: { id: string; url: string } }>;

export type SandboxView = {
  id: string;
  status: "starting" | "ready";
  url: string | null;
  expiresAt: string;
  fromPool: boolean;
  createdAt: string;
  siteId: string | null;
  manifest?: ManifestView;
  warnings?: string[];
};

export type ManifestView = {
  sourceSiteId: string | null;
  sourceUrl: string | null;
  imageTag: string;
  items: SandboxManifest["items"];
  createdAt: string;
  expiresAt: string;
};

const notFound = () => new AppError("not_found", "There is no such sandbox in your account.", { status: 404 });

export class SandboxManager {
  readonly config: SandboxConfig;
  readonly engine: SandboxEngine;
  /** This instance's name in leases. */
  readonly holder = `${process.pid}-${randomBytes(4).toString("hex")}`;
  private readonly siteSource?: SiteSource;
  private readonly imagePaths: ImagePaths;
  private readonly now: () => Date;
  private imageTag?: Promise<string>;
  private filling?: Promise<void>;
  private timers: NodeJS.Timeout[] = [];
  private closed = false;

  constructor(
    config: SandboxConfig,
    deps: { engine?: SandboxEngine; siteSource?: SiteSource; imagePaths?: ImagePaths; now?: () => Date } = {},
  ) {
    this.config = config;
    this.engine = deps.engine ?? new SandboxEngine({ dockerHost: config.dockerHost });
    this.siteSource = deps.siteSource;
    this.imagePaths = deps.imagePaths ?? defaultImagePaths(config.cacheDir);
    this.now = deps.now ?? clockNow;
  }

  assertEnabled() {
    if (!this.config.enabled) {
      throw new AppError("sandbox_unavailable", "Sandboxes are not enabled on this service.", { status: 503 });
    }
  }

  /** The image tag sandboxes run, built on first use when missing. A failure is retried on the next call. */
  image(): Promise<string> {
    this.imageTag ??= ensureSandboxImage({
      engine: this.engine,
      configuredImage: this.config.image,
      paths: this.imagePaths,
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

  // ------------------------------------------------------------------ sessions

  async createSession(input: { userId: string; siteId?: string; ttlMinutes?: number; postIds?: number[] }): Promise<SandboxView> {
    this.assertEnabled();
    const ttl = input.ttlMinutes ?? this.config.ttlMinutes;
    if (ttl > this.config.ttlMinutes) {
      throw new AppError("invalid_input", `A sandbox lives at most ${this.config.ttlMinutes} minutes.`, {
        status: 400,
        details: { issues: [{ path: ["ttlMinutes"], message: `must be at most ${this.config.ttlMinutes}` }] },
      });
    }
    // Resolve the source first: a site that is not the user's is a 404 before any sandbox is used.
    const source = input.siteId ? await this.resolveSite(input.userId, input.siteId) : undefined;
    const imageTag = await this.image();
    await this.engine.ping();
    const now = this.now();
    const expiresAt = new Date(now.getTime() + ttl * 60_000);
    const id = randomUUID();
    const claim = await claimSandboxForUser({
      userId: input.userId,
      siteId: input.siteId ?? null,
      max: this.config.max,
      now,
      expiresAt,
      cold: {
        id,
        status: "starting",
        userId: input.userId,
        siteId: input.siteId ?? null,
        imageTag,
        fromPool: false,
        createdAt: now,
        acquiredAt: now,
        lastUsedAt: now,
        expiresAt,
      },
    });
    if (claim.outcome === "capacity_reached") {
      throw new AppError("capacity_reached", "All sandboxes are in use. Close one you no longer need, or try again later.", {
        status: 429,
        headers: { "Retry-After": "60" },
        details: { max: this.config.max },
      });
    }

    let sandbox = claim.sandbox;
    if (claim.outcome === "pooled" && !(await this.isRunning(sandbox).catch(async (error) => {
      // The engine went away between the ping and now: give the pool member back untouched.
      await transitionSandbox({ id: sandbox.id, from: ["ready"], to: "pooled", fields: { userId: null, siteId: null, acquiredAt: null } });
      throw error;
    }))) {
      // The pooled container died (engine restart, OOM): drop it and start one cold in its place.
      log.warn("pooled sandbox was not running", { sandboxId: sandbox.id });
      await this.destroy(sandbox).catch(() => {});
      return this.createSession(input);
    }
    this.refillSoon();
    try {
      if (claim.outcome === "cold") sandbox = await this.launch(sandbox, "ready");
      let warnings: string[] | undefined;
      let manifest = {
        sandboxId: sandbox.id,
        sourceSiteId: input.siteId ?? null,
        sourceUrl: source?.site.url ?? null,
        sourceUploadsUrl: null as string | null,
        imageTag: sandbox.imageTag,
        items: [] as SandboxManifest["items"],
        createdAt: sandbox.acquiredAt ?? now,
        expiresAt: sandbox.expiresAt,
      };
      if (source) {
        const ids = input.postIds?.length ? input.postIds : await defaultSubsetIds(source.client);
        const subset = await copySubset({
          source: source.client,
          target: this.clientFor(sandbox),
          ids,
          mediaBaseUrl: this.mediaBaseUrl(sandbox.id),
        });
        manifest = { ...manifest, items: subset.items, sourceUrl: subset.sourceUrl ?? manifest.sourceUrl, sourceUploadsUrl: subset.sourceUploadsUrl };
        warnings = subset.warnings;
      }
      await upsertSandboxManifest(manifest);
      return { ...this.view(sandbox), manifest: manifestView(manifest), ...(warnings?.length ? { warnings } : {}) };
    } catch (error) {
      await this.destroy(sandbox).catch((cause) => log.error("could not remove a failed sandbox", { sandboxId: sandbox.id, error: cause }));
      if (isEngineDown(error)) throw sandboxUnavailable(error);
      throw error;
    }
  }

  async getSession({ userId, id }: { userId: string; id: string }): Promise<SandboxView> {
    this.assertEnabled();
    const sandbox = await this.ownedSandbox(userId, id);
    await touchSandbox({ id, now: this.now() });
    const manifest = await findSandboxManifest({ sandboxId: id });
    return { ...this.view(sandbox), ...(manifest ? { manifest: manifestView(manifest) } : {}) };
  }

  async deleteSession({ userId, id }: { userId: string; id: string }): Promise<void> {
    this.assertEnabled();
    const sandbox = await this.ownedSandbox(userId, id);
    await this.destroy(sandbox);
  }

  /**
   * A one-time link that signs the owner into the sandbox's wp-admin (valid for two minutes, single use).
   * The sandbox stores only the link token's SHA-256.
   */
  async createLoginLink({ userId, id }: { userId: string; id: string }): Promise<{ url: string; expiresAt: string }> {
    this.assertEnabled();
    const sandbox = await this.ownedSandbox(userId, id);
    if (sandbox.status !== "ready" || !sandbox.containerId || !sandbox.hostPort) throw notFound();
    const token = randomBytes(32).toString("base64url");
    const expires = Math.floor(this.now().getTime() / 1000) + LOGIN_LINK_SECONDS;
    const hash = createHash("sha256").update(token).digest("hex");
    const result = await this.engine.exec(sandbox.containerId, ["sh", "-c", 'umask 077 && printf %s "$1" > "/data/login/$2"', "sh", String(expires), hash]);
    if (result.exitCode !== 0) throw new Error(`could not store the sign-in token: ${result.stderr.trim()}`);
    await touchSandbox({ id, now: this.now() });
    return { url: `${sandboxUrl(sandbox.hostPort)}/?sitewright_login=${token}`, expiresAt: new Date(expires * 1000).toISOString() };
  }

  /** The signed client for a user's sandbox (what the agent uses to work in it). */
  async clientForSession({ userId, id }: { userId: string; id: string }): Promise<SignedSiteClient> {
    this.assertEnabled();
    const sandbox = await this.ownedSandbox(userId, id);
    await touchSandbox({ id, now: this.now() });
    return this.clientFor(sandbox);
  }

  clientFor(sandbox: Sandbox): SignedSiteClient {
    if (!sandbox.hostPort || !sandbox.credentials) throw new Error(`sandbox ${sandbox.id} is not provisioned`);
    const credentials = JSON.parse(decryptSecret(sandbox.credentials, sandbox.id)) as SandboxCredentials;
    return createSandboxClient(sandbox.hostPort, credentials);
  }

  mediaBaseUrl(sandboxId: string) {
    return `${this.config.appUrl}/sandbox/media/${sandboxId}/`;
  }

  private async ownedSandbox(userId: string, id: string): Promise<Sandbox> {
    if (!/^[0-9a-f-]{36}$/.test(id)) throw notFound();
    const sandbox = await findSandboxForUser({ id, userId });
    if (!sandbox || sandbox.status === "removing" || sandbox.expiresAt < this.now()) throw notFound();
    return sandbox;
  }

  private async resolveSite(userId: string, siteId: string) {
    if (!this.siteSource) {
      throw new AppError("sandbox_unavailable", "Copying a site into a sandbox is not available on this service.", { status: 503 });
    }
    return this.siteSource({ userId, siteId });
  }

  private view(sandbox: Sandbox): SandboxView {
    return {
      id: sandbox.id,
      status: sandbox.status === "ready" ? "ready" : "starting",
      url: sandbox.hostPort ? sandboxUrl(sandbox.hostPort) : null,
      expiresAt: sandbox.expiresAt.toISOString(),
      fromPool: sandbox.fromPool,
      createdAt: (sandbox.acquiredAt ?? sandbox.createdAt).toISOString(),
      siteId: sandbox.siteId,
    };
  }

  // ------------------------------------------------------------------ containers

  /** Starts the row's container, waits for a working /wp-json, creates its plugin credentials. */
  async launch(row: Sandbox, finalStatus: "ready" | "pooled"): Promise<Sandbox> {
    const { containerId, hostPort } = await this.engine.run({
      sandboxId: row.id,
      image: row.imageTag,
      namespace: this.config.namespace,
      owner: row.userId ?? "pool",
      expiresAt: row.expiresAt,
    });
    await updateSandbox({ id: row.id, containerId, hostPort });
    const credentials = await this.provision(containerId, hostPort);
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
      throw notFound();
    }
    return updated;
  }

  /**
   * Gets the sandbox's plugin credentials. Fast path: read the single-use provisioning token the entrypoint
   * wrote (a plain `cat` through the engine), then ask the sandbox's must-use plugin for credentials over HTTP:
   * that first request also warms PHP's opcache in the server process and proves /wp-json works. Images
   * without that route (a SANDBOX_IMAGE built elsewhere) get them from the plugin's CLI instead.
   */
  private async provision(containerId: string, hostPort: number): Promise<SandboxCredentials> {
    const token = await this.provisionToken(containerId);
    if (token) {
      const credentials = await provisionOverHttp(hostPort, token, { scopes: SANDBOX_SCOPES, serviceUrl: this.config.appUrl });
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
      `--service-url=${this.config.appUrl}`,
    ]);
    const line = result.stdout.trim().split("\n").pop() ?? "";
    if (result.exitCode !== 0 || !line.startsWith("{")) {
      throw new Error(`the sandbox's plugin did not create credentials (exit ${result.exitCode}): ${result.stderr.trim().slice(0, 500)}`);
    }
    const parsed = JSON.parse(line) as SandboxCredentials;
    if (typeof parsed.token !== "string" || typeof parsed.secret !== "string") throw new Error("the plugin's credentials are malformed");
    return parsed;
  }

  private async isRunning(sandbox: Sandbox): Promise<boolean> {
    if (!sandbox.containerId) return false;
    const info = await this.engine.inspect(sandbox.containerId);
    return Boolean(info?.State.Running);
  }

  /** Marks the row as going, removes its container, deletes the row (its manifest goes with it). */
  async destroy(sandbox: Sandbox): Promise<void> {
    await transitionSandbox({ id: sandbox.id, from: ["warming", "pooled", "starting", "ready", "removing"], to: "removing" });
    const current = (await findSandboxById({ id: sandbox.id })) ?? sandbox;
    const containerId = current.containerId ?? sandbox.containerId;
    if (containerId) await this.engine.remove(containerId);
    else {
      // No container id recorded yet: find it by label, in case the engine made it.
      for (const container of await this.engine.list(this.config.namespace)) {
        if (container.sandboxId === sandbox.id) await this.engine.remove(container.containerId);
      }
    }
    await deleteSandboxRow({ id: sandbox.id });
  }

  // ------------------------------------------------------------------ pool

  /** Tops the warm pool up to SANDBOX_POOL_SIZE; one fill at a time per process. */
  fillPool(): Promise<void> {
    if (!this.config.enabled || this.config.poolSize === 0 || this.closed) return Promise.resolve();
    this.filling ??= this.fillLoop().finally(() => {
      this.filling = undefined;
    });
    return this.filling;
  }

  private refillSoon() {
    setImmediate(() => {
      this.fillPool().catch((error) => log.warn("sandbox pool refill failed", { error }));
    });
  }

  private async fillLoop() {
    const imageTag = await this.image();
    while (!this.closed) {
      const now = this.now();
      const row = await reservePoolSlot({
        poolSize: this.config.poolSize,
        row: {
          id: randomUUID(),
          status: "warming",
          userId: null,
          imageTag,
          fromPool: true,
          createdAt: now,
          lastUsedAt: now,
          // A pool member is recycled after poolMaxAgeMinutes; once taken, its session's expiry replaces this.
          expiresAt: new Date(now.getTime() + this.config.poolMaxAgeMinutes * 60_000),
        },
      });
      if (!row) return;
      try {
        await this.launch(row, "pooled");
      } catch (error) {
        await this.destroy(row).catch(() => {});
        throw error;
      }
    }
  }

  // ------------------------------------------------------------------ lifecycle

  /** Builds the image if needed, fills the pool, and runs GC now and on an interval. */
  startBackground(gc: () => Promise<unknown>) {
    if (!this.config.enabled || this.timers.length > 0) return;
    const tick = () => {
      gc()
        .catch((error) => log.warn("sandbox GC failed", { error }))
        .then(() => this.fillPool())
        .catch((error) => log.warn("sandbox pool fill failed", { error }));
    };
    tick();
    const timer = setInterval(tick, this.config.gcIntervalMs);
    timer.unref();
    this.timers.push(timer);
  }

  /** Stops background work (tests and shutdown); containers are left to GC or `destroy`. */
  async close() {
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    await this.filling?.catch(() => {});
  }
}

function manifestView(manifest: Omit<SandboxManifest, "sandboxId" | "sourceUploadsUrl"> & Partial<SandboxManifest>): ManifestView {
  return {
    sourceSiteId: manifest.sourceSiteId ?? null,
    sourceUrl: manifest.sourceUrl ?? null,
    imageTag: manifest.imageTag,
    items: manifest.items,
    createdAt: manifest.createdAt.toISOString(),
    expiresAt: manifest.expiresAt.toISOString(),
  };
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
        if (typeof credentials.token !== "string" || typeof credentials.secret !== "string") throw new Error("malformed credentials");
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
  error instanceof TypeError && /fetch failed/.test(error.message) && /ECONNREFUSED|ECONNRESET|UND_ERR_SOCKET|other side closed/.test(String((error as { cause?: unknown }).cause));

/** Polls the sandbox until WordPress's REST index answers with its routes. */
export async function waitForWordPress(hostPort: number, timeoutMs = READY_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`${sandboxUrl(hostPort)}/wp-json/`, { signal: AbortSignal.timeout(5_000), redirect: "manual" });
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
  throw new Error(`the sandbox on port ${hostPort} did not answer /wp-json/ within ${timeoutMs} ms`, { cause: lastError });
}
