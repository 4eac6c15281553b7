/**
 * A user's sandboxes: create (from the warm pool or cold, within capacity), read, delete, sign-in links and the
 * media proxy, on top of three units with narrow interfaces: containers (containers.ts: image, start,
 * provisioning, removal), the warm pool (pool.ts) and sign-in links (sign-in.ts); subsets are copied by
 * subset.ts. One `SandboxManager` per process (see `getSandboxManager`); every decision that must hold across
 * app instances is made in the database (lib/db/queries/sandboxes.ts).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { now as clockNow } from "@/lib/clock";
import {
  claimSandboxForUser,
  deleteSandboxRow,
  findSandboxForUser,
  findSandboxManifest,
  listSandboxesForUser,
  touchSandbox,
  transitionSandbox,
  upsertSandboxManifest,
} from "@/lib/db/queries";
import type { Sandbox, SandboxManifest } from "@/lib/db/schema";
import { AppError, isAppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { decryptSecret, isUnreadableSecret } from "@/lib/sites/crypto";
import type { SiteClient } from "@/lib/sites/types";
import type { SandboxConfig } from "./config";
import { SandboxContainers } from "./containers";
import type { SandboxDriver } from "./driver";
import { createDriver } from "./drivers";
import { isEngineDown, sandboxUnavailable } from "./engine";
import type { Collectable, GcPolicy } from "./gc";
import { defaultImagePaths, type ImagePaths } from "./image";
import { fetchSandboxMedia, type MediaFile } from "./media-proxy";
import { SandboxPool } from "./pool";
import { SandboxSpares, type Spare } from "./spares";
import { timedStep } from "./steps";
import { previewUrl } from "./preview";
import { type JobSandbox, jobSandboxFor, rehearsalFor } from "./rehearsal";
import { createSignInLink } from "./sign-in";
import { copySubset } from "./subset";

/** What applying and discarding a rehearsal need of the sandbox manager (lib/workflows/apply-rehearsal.ts). */
export type RehearsalSandboxAccess = {
  appUrl: string;
  /** The owner's ready sandbox and its signed client; throws 404 when it is gone. */
  clientForOwned(input: { userId: string; id: string }): Promise<{ client: SiteClient; endpoint: string | null }>;
  deleteSandbox(input: { userId: string; id: string }): Promise<void>;
};

/** How the manager reaches a user's paired site for a subset (lib/sites in the app; injected in tests). */
export type SiteSource = (input: {
  userId: string;
  siteId: string;
}) => Promise<{ client: SiteClient; site: { id: string; url: string } }>;

export type SandboxView = {
  id: string;
  status: "starting" | "ready";
  /** The sandbox's site as a browser reaches it: the preview through the service (never the container's address). */
  url: string;
  previewUrl: string;
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

type CreateSandboxInput = { userId: string; siteId?: string; ttlMinutes?: number; postIds?: number[] };

type ResolvedSource = { client: SiteClient; site: { id: string; url: string } };

const notFound = () => new AppError("not_found", "There is no such sandbox in your account.");

export class SandboxManager implements Collectable {
  /** This instance's name in leases. */
  readonly holder = `${process.pid}-${randomBytes(4).toString("hex")}`;
  readonly gcPolicy: GcPolicy;
  /** The containers unit; GC sees it only as a `SandboxFleet`. */
  readonly fleet: SandboxContainers;
  private readonly config: SandboxConfig;
  private readonly pool: SandboxPool;
  private readonly spares: SandboxSpares;
  private readonly siteSource?: SiteSource;
  private readonly now: () => Date;
  private timers: NodeJS.Timeout[] = [];

  constructor(
    config: SandboxConfig,
    deps: { driver?: SandboxDriver; siteSource?: SiteSource; imagePaths?: ImagePaths; now?: () => Date } = {},
  ) {
    this.config = config;
    this.now = deps.now ?? clockNow;
    this.siteSource = deps.siteSource;
    this.fleet = new SandboxContainers(
      deps.driver ?? createDriver(config),
      {
        image: config.image,
        imagePaths: deps.imagePaths ?? defaultImagePaths(config.cacheDir),
        namespace: config.namespace,
        appUrl: config.appUrl,
        requireIsolation: config.requireIsolation,
        probePorts: config.probePorts,
      },
      this.now,
    );
    this.pool = new SandboxPool(
      this.fleet,
      { size: config.enabled ? config.poolSize : 0, maxAgeMinutes: config.poolMaxAgeMinutes, holder: this.holder },
      this.now,
    );
    this.spares = new SandboxSpares(this.fleet, config.enabled ? config.spares : 0, this.now);
    this.gcPolicy = {
      enabled: config.enabled,
      intervalMs: config.gcIntervalMs,
      idleMinutes: config.idleMinutes,
      mediaCacheDir: config.mediaCacheDir,
      mediaCacheBytes: config.mediaCacheBytes,
      abandonedGraceMs: (config.ttlMinutes + 10) * 60_000,
    };
  }

  assertEnabled() {
    if (!this.config.enabled) {
      throw new AppError("sandbox_unavailable", "Sandboxes are not enabled on this service.");
    }
  }

  /** The image tag sandboxes run, built on first use when missing. */
  image(): Promise<string> {
    return this.fleet.image();
  }

  /** The worst the network check found on the deployment's nodes (`/health`). */
  networkState() {
    return this.fleet.networkState();
  }

  // ------------------------------------------------------------------ a user's sandboxes

  async createSandbox(input: CreateSandboxInput): Promise<SandboxView> {
    this.assertEnabled();
    const ttl = this.checkedTtl(input.ttlMinutes);
    // Resolve the source first: a site that is not the user's is a 404 before any sandbox is used.
    const source = input.siteId ? await this.resolveSite(input.userId, input.siteId) : undefined;
    const imageTag = await this.fleet.image();
    // A claimed pool member that turns out gone (removed behind this process's back, dead, or sealed under another
    // key) is dropped and the claim made again, in this request: the next member, or a cold start. Each round drops
    // a row, so the rounds end; the cap guards against a pool refilled as fast with members that die.
    for (let round = 0; ; round++) {
      const mayReplace = round < this.config.poolSize + 2;
      // A spare's id becomes the cold row's id: its network and container were made for that id.
      const spare = this.spares.take(imageTag);
      // The engine is asked beside the claim, not before it: only a cold start waits for the answer.
      const pinged = this.fleet.ping().then(
        () => undefined,
        (error: unknown) => error,
      );
      const { claim, now } = await this.claim(input, ttl, imageTag, spare?.sandboxId).catch((error: unknown) => {
        if (spare) this.spares.giveBack(spare);
        throw error;
      });
      if (claim.outcome === "cold") return this.coldStart(claim.sandbox, spare, pinged, { input, source, now });
      if (spare) this.spares.giveBack(spare);
      if (!(await this.usablePoolMember(claim.sandbox, mayReplace))) continue;
      this.pool.refillSoon();
      try {
        return await this.fill(claim.sandbox, Promise.resolve(claim.sandbox), input, source, now);
      } catch (error) {
        await this.dropFailed(claim.sandbox, mayReplace, error);
      }
    }
  }

  /**
   * The pool was empty: start the row's sandbox (from its spare when there is one: only the start and the
   * provisioning are left), while the source's subset is read (the copy waits only for its import).
   */
  private async coldStart(
    row: Sandbox,
    spare: Spare | undefined,
    pinged: Promise<unknown>,
    request: { input: CreateSandboxInput; source: ResolvedSource | undefined; now: Date },
  ): Promise<SandboxView> {
    const engineDown = await pinged;
    if (engineDown) {
      if (spare) this.spares.giveBack(spare);
      await deleteSandboxRow({ id: row.id }).catch(() => {});
      throw engineDown;
    }
    const launched = this.fleet.launch(row, "ready", spare);
    // The pool and the spares are topped up once this start is done, not beside it: a spare made (or a pool member
    // started) meanwhile takes the engine and the cores from the owner who waits (docs/performance.md, issue 39).
    const refill = () => {
      this.pool.refillSoon();
      this.spares.refillSoon();
    };
    launched.then(refill, refill);
    try {
      return await this.fill(row, launched, request.input, request.source, request.now);
    } catch (error) {
      await launched.catch(() => {});
      await this.dropFailed(row, false, error);
      throw error;
    }
  }

  /** The sandbox's lifetime in minutes: the service's, or a shorter one asked for (a longer one is a 400). */
  private checkedTtl(ttlMinutes: number | undefined): number {
    const ttl = ttlMinutes ?? this.config.ttlMinutes;
    if (ttl > this.config.ttlMinutes) {
      throw new AppError("invalid_input", `A sandbox lives at most ${this.config.ttlMinutes} minutes.`, {
        details: { issues: [{ path: ["ttlMinutes"], message: `must be at most ${this.config.ttlMinutes}` }] },
      });
    }
    return ttl;
  }

  /** Claims a pool member or a cold slot within capacity (one SQL statement); capacity reached is a 429. */
  private async claim(input: CreateSandboxInput, ttl: number, imageTag: string, coldId: string = randomUUID()) {
    const now = this.now();
    const expiresAt = new Date(now.getTime() + ttl * 60_000);
    const claim = await claimSandboxForUser({
      userId: input.userId,
      siteId: input.siteId ?? null,
      max: this.config.max,
      maxPerUser: this.config.maxPerUser,
      now,
      expiresAt,
      cold: { id: coldId, imageTag },
    });
    if (claim.outcome === "capacity_reached") throw this.capacityReached(claim.limit);
    return { claim, now };
  }

  private capacityReached(limit: "service" | "user"): AppError {
    return limit === "user"
      ? new AppError(
          "capacity_reached",
          `You already have ${this.config.maxPerUser} sandboxes open. Close one you no longer need to start another.`,
          { headers: { "Retry-After": "60" }, details: { maxPerUser: this.config.maxPerUser } },
        )
      : new AppError(
          "capacity_reached",
          "All sandboxes are in use. Close one you no longer need, or try again later.",
          {
            headers: { "Retry-After": "60" },
            details: { max: this.config.max },
          },
        );
  }

  /** False when the claimed pool member cannot be used: it is removed, and another round may claim again. */
  private async usablePoolMember(sandbox: Sandbox, mayReplace: boolean): Promise<boolean> {
    const problem = await this.poolMemberProblem(sandbox);
    if (!problem) {
      this.setExpirySoon(sandbox);
      return true;
    }
    log.warn("claimed pool member cannot be used: replacing it", { sandboxId: sandbox.id, problem });
    await this.fleet.destroy(sandbox).catch(() => {});
    if (!mayReplace) throw sandboxUnavailable();
    return false;
  }

  /**
   * After the answer, a claimed pool member takes its user's expiry on the driver too (a pod's deadline), so it
   * ends on time with every app instance down. Off the request path: the data layer already holds the expiry (GC
   * enforces it), and a member gone meanwhile is found by the owner's next call and by GC.
   */
  private setExpirySoon(sandbox: Sandbox) {
    setImmediate(() => {
      this.fleet.setExpiry(sandbox).then(
        (kept) => {
          if (!kept) log.warn("a pool member went before its expiry could be set", { sandboxId: sandbox.id });
        },
        (error) => log.warn("could not set a pool member's expiry", { sandboxId: sandbox.id, error }),
      );
    });
  }

  /** Copies the chosen subset of the source site in (when there is one) and records the sandbox's manifest. */
  private async fill(
    row: Sandbox,
    made: Promise<Sandbox>,
    input: CreateSandboxInput,
    source: ResolvedSource | undefined,
    now: Date,
  ): Promise<SandboxView> {
    let warnings: string[] | undefined;
    let manifest = {
      sandboxId: row.id,
      sourceSiteId: input.siteId ?? null,
      sourceUrl: source?.site.url ?? null,
      sourceUploadsUrl: null as string | null,
      imageTag: row.imageTag,
      items: [] as SandboxManifest["items"],
      createdAt: row.acquiredAt ?? now,
      expiresAt: row.expiresAt,
    };
    if (source) {
      // The source is read while the sandbox starts; the import waits for it.
      const target = made.then((sandbox) => this.fleet.clientFor(sandbox));
      target.catch(() => {});
      const subset = await timedStep("copy", row.id, () =>
        copySubset({
          source: source.client,
          target,
          ids: input.postIds,
          mediaBaseUrl: this.mediaBaseUrl(row.id),
        }),
      );
      manifest = {
        ...manifest,
        items: subset.items,
        sourceUrl: subset.sourceUrl ?? manifest.sourceUrl,
        sourceUploadsUrl: subset.sourceUploadsUrl,
      };
      warnings = subset.warnings;
    }
    const sandbox = await made;
    await upsertSandboxManifest(manifest);
    return { ...this.view(sandbox), manifest: manifestView(manifest), ...(warnings?.length ? { warnings } : {}) };
  }

  /**
   * Removes a sandbox that failed while being started or filled, then rethrows the failure, except when a pool
   * member died while it was being filled (its container went after the check): then it returns, for another round.
   */
  private async dropFailed(sandbox: Sandbox, mayRetry: boolean, error: unknown): Promise<void> {
    const memberDied = mayRetry && !(await this.fleet.isRunning(sandbox).catch(() => true));
    await this.fleet
      .destroy(sandbox)
      .catch((cause) => log.error("could not remove a failed sandbox", { sandboxId: sandbox.id, error: cause }));
    if (memberDied) {
      log.warn("pool member died while being handed out: replacing it", { sandboxId: sandbox.id, error });
      return;
    }
    // A 503 we raised already says why (the network check's names its fix); anything else that a dead engine
    // caused, a failed provisioning request included, becomes the generic 503.
    if (isAppError(error) && error.code === "sandbox_unavailable") throw error;
    if (isEngineDown(error)) throw sandboxUnavailable(error);
    throw error;
  }

  /**
   * Why a claimed pool member cannot be handed out, or undefined when it can. When the engine cannot be reached
   * the member goes back to the pool untouched and the 503 is thrown; any other failure to read its container
   * (Podman answers 500 for one being removed) counts as the member being gone.
   */
  private async poolMemberProblem(sandbox: Sandbox): Promise<string | undefined> {
    if (!sealedUnderCurrentKey(sandbox))
      return "its credentials no longer decrypt (another ENCRYPTION_KEY sealed them)";
    try {
      return (await this.fleet.isRunning(sandbox)) ? undefined : "its container is gone or not running";
    } catch (error) {
      if (!isEngineDown(error)) return `its container could not be read: ${String((error as Error).message)}`;
      await transitionSandbox({
        id: sandbox.id,
        from: ["ready"],
        to: "pooled",
        fields: { userId: null, siteId: null, acquiredAt: null },
      });
      throw error;
    }
  }

  async getSandbox({ userId, id }: { userId: string; id: string }): Promise<SandboxView> {
    this.assertEnabled();
    const sandbox = await this.ownedSandbox(userId, id);
    await touchSandbox({ id, now: this.now() });
    const manifest = await findSandboxManifest({ sandboxId: id });
    return { ...this.view(sandbox), ...(manifest ? { manifest: manifestView(manifest) } : {}) };
  }

  async deleteSandbox({ userId, id }: { userId: string; id: string }): Promise<void> {
    this.assertEnabled();
    const sandbox = await this.ownedSandbox(userId, id);
    await this.fleet.destroy(sandbox);
  }

  /** A one-time link that signs the owner into the sandbox's wp-admin (sign-in.ts). */
  async createLoginLink({ userId, id }: { userId: string; id: string }): Promise<{ url: string; expiresAt: string }> {
    this.assertEnabled();
    const sandbox = await this.ownedSandbox(userId, id);
    if (sandbox.status !== "ready" || !sandbox.containerId || !sandbox.endpoint) throw notFound();
    const link = await createSignInLink(
      (containerId, cmd) => this.fleet.exec(containerId, cmd),
      { containerId: sandbox.containerId, siteUrl: previewUrl(this.config.appUrl, sandbox.id) },
      this.now(),
    );
    await touchSandbox({ id, now: this.now() });
    return link;
  }

  /**
   * The sandbox a conversation rehearses in (sandbox mode), made from the pool as a copy of the site, or copied
   * again when the live site changed and nothing waits for Apply (rehearsal.ts).
   */
  async rehearsal(input: { userId: string; siteId: string; conversationId: string; live: SiteClient }) {
    this.assertEnabled();
    return rehearsalFor({
      ...input,
      now: this.now,
      sandboxes: {
        createSandbox: (create) => this.createSandbox(create),
        clientFor: (sandbox) => this.fleet.clientFor(sandbox),
        destroy: (sandbox) => this.fleet.destroy(sandbox),
        mediaBaseUrl: (sandboxId) => this.mediaBaseUrl(sandboxId),
        isRunning: (sandbox) => this.fleet.isRunning(sandbox),
      },
    });
  }

  /** The signed client of a user's ready sandbox (apply reads the rehearsed state through it). */
  async clientForOwned({
    userId,
    id,
  }: {
    userId: string;
    id: string;
  }): Promise<{ sandbox: Sandbox; client: SiteClient }> {
    this.assertEnabled();
    const sandbox = await this.ownedSandbox(userId, id);
    if (sandbox.status !== "ready") throw notFound();
    return { sandbox, client: this.fleet.clientFor(sandbox) };
  }

  /** A bulk job's access to the user's rehearsal sandbox it runs in (rehearsal.ts); 404 when the sandbox is gone. */
  async jobSandbox(input: { userId: string; id: string; live: SiteClient }): Promise<JobSandbox> {
    const { client } = await this.clientForOwned(input);
    return jobSandboxFor({ sandboxId: input.id, live: input.live, client, mediaBaseUrl: this.mediaBaseUrl(input.id) });
  }

  /** What apply and discard of a rehearsal need (apply.ts). */
  rehearsals(): RehearsalSandboxAccess {
    return {
      appUrl: this.config.appUrl,
      clientForOwned: async (input) => {
        const { sandbox, client } = await this.clientForOwned(input);
        return { client, endpoint: sandbox.endpoint };
      },
      deleteSandbox: (input) => this.deleteSandbox(input),
    };
  }

  /** A user's open sandboxes, newest first, with what each holds (the sandbox panel). */
  async listSandboxes({ userId }: { userId: string }): Promise<SandboxView[]> {
    this.assertEnabled();
    const rows = await listSandboxesForUser({ userId, now: this.now() });
    return Promise.all(
      rows.map(async (row) => {
        const manifest = await findSandboxManifest({ sandboxId: row.id });
        return { ...this.view(row), ...(manifest ? { manifest: manifestView(manifest) } : {}) };
      }),
    );
  }

  /** A file of the sandbox's media, proxied from its source site's uploads (media-proxy.ts). */
  async media({ sandboxId, segments }: { sandboxId: string; segments: string[] }): Promise<MediaFile> {
    this.assertEnabled();
    return fetchSandboxMedia({
      sandboxId,
      segments,
      cacheDir: this.config.mediaCacheDir,
      maxCacheBytes: this.config.mediaCacheBytes,
    });
  }

  private mediaBaseUrl(sandboxId: string) {
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
      throw new AppError("sandbox_unavailable", "Copying a site into a sandbox is not available on this service.");
    }
    return this.siteSource({ userId, siteId });
  }

  private view(sandbox: Sandbox): SandboxView {
    return {
      id: sandbox.id,
      status: sandbox.status === "ready" ? "ready" : "starting",
      url: previewUrl(this.config.appUrl, sandbox.id),
      previewUrl: previewUrl(this.config.appUrl, sandbox.id),
      expiresAt: sandbox.expiresAt.toISOString(),
      fromPool: sandbox.fromPool,
      createdAt: (sandbox.acquiredAt ?? sandbox.createdAt).toISOString(),
      siteId: sandbox.siteId,
    };
  }

  // ------------------------------------------------------------------ background work

  /** Tops the warm pool up to SANDBOX_POOL_SIZE. */
  fillPool(): Promise<void> {
    return this.pool.fill();
  }

  /** Makes the cold starts' spares (spares.ts) and checks the network ahead; the background does it on its own. */
  prepareSpares(): Promise<void> {
    return this.spares.fill();
  }

  /** How cold starts are made (`/health`'s `sandboxes`): no checkpoint/restore here, spares when the driver can. */
  coldStarts(): { driver: SandboxConfig["driver"]; checkpoint: false; spares: number } {
    return { driver: this.config.driver, checkpoint: false, spares: this.spares.enabled ? this.config.spares : 0 };
  }

  /** Builds the image if needed, fills the pool, and runs GC now and on an interval. */
  startBackground(gc: () => Promise<unknown>) {
    if (!this.config.enabled || this.timers.length > 0) return;
    const tick = () => {
      gc()
        .catch((error) => log.warn("sandbox GC failed", { error }))
        .then(() => this.pool.fill())
        .catch((error) => log.warn("sandbox pool fill failed", { error }))
        .then(() => this.spares.fill())
        .catch((error) => log.warn("could not prepare sandbox spares", { error }));
    };
    tick();
    const timer = setInterval(tick, this.config.gcIntervalMs);
    timer.unref();
    this.timers.push(timer);
  }

  /** Stops background work (tests and shutdown); containers are left to GC or `destroy`. */
  async close() {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    await this.pool.close();
    await this.spares.close();
  }
}

function manifestView(
  manifest: Omit<SandboxManifest, "sandboxId" | "sourceUploadsUrl"> & Partial<SandboxManifest>,
): ManifestView {
  return {
    sourceSiteId: manifest.sourceSiteId ?? null,
    sourceUrl: manifest.sourceUrl ?? null,
    imageTag: manifest.imageTag,
    items: manifest.items,
    createdAt: manifest.createdAt.toISOString(),
    expiresAt: manifest.expiresAt.toISOString(),
  };
}

function sealedUnderCurrentKey(sandbox: Sandbox): boolean {
  if (!sandbox.credentials) return false;
  try {
    decryptSecret(sandbox.credentials, sandbox.id);
    return true;
  } catch (error) {
    if (isUnreadableSecret(error)) return false;
    throw error;
  }
}
