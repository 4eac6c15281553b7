/**
 * Spares: what a cold start needs that does not depend on its owner, made ahead of any request, so a cold start
 * (the pool empty) only starts a container and provisions it. A spare is a sandbox's own network and its created,
 * never started, container: no process runs in it, and it holds no secret and no data (the entrypoint makes the
 * database copy, the salts and the provisioning token when the container starts), so nothing of one owner can
 * reach another through it. Each is used once, for the sandbox whose id it was made with; an unused one is removed.
 * Spares are not the pool (they are not counted in SANDBOX_POOL_SIZE and have no rows): they live in this process,
 * labelled with owner `spare` and an expiry, which GC honours (gc.ts) and then removes them after, when this
 * process died holding them. The same loop keeps the host's network check fresh ahead
 * (`SandboxContainers.checkIsolationAhead`), so a cold start never waits for the probe either.
 */
import { randomUUID } from "node:crypto";
import { log } from "@/lib/log";
import { SerialFill } from "./serial-fill";

/** The owner label of a spare's container. */
export const SPARE_OWNER = "spare";
/** A spare's label expiry: GC removes one still unused this long after it was made. */
export const SPARE_MAX_AGE_MS = 30 * 60_000;
/** A spare is handed to a cold start only while this young (well before GC may take it). */
const SPARE_USE_MS = 20 * 60_000;
/** How far ahead of its recheck the network check is refreshed. */
const ISOLATION_AHEAD_MS = 10 * 60_000;

export type Spare = { sandboxId: string; handle: string; imageTag: string; madeAt: number };

/** What spares need of the containers unit (containers.ts). */
export type SpareContainers = {
  readonly canPrepare: boolean;
  image(): Promise<string>;
  prepare(spec: {
    sandboxId: string;
    image: string;
    owner: string;
    expiresAt: Date;
  }): Promise<{ handle: string } | undefined>;
  removeContainer(handle: string): Promise<void>;
  checkIsolationAhead(aheadMs: number, image: string): Promise<void>;
};

export class SandboxSpares {
  private spares: Spare[] = [];
  private readonly filling = new SerialFill(() => (this.closed ? Promise.resolve() : this.fillLoop()));
  private closed = false;

  constructor(
    private readonly containers: SpareContainers,
    /** How many to keep (SANDBOX_SPARES); 0, or a driver that cannot prepare, turns spares off. */
    private readonly size: number,
    private readonly now: () => Date,
  ) {}

  get enabled(): boolean {
    return this.size > 0 && this.containers.canPrepare && !this.closed;
  }

  /** A spare for a cold start of `imageTag`, now this caller's alone; undefined when none is ready. */
  take(imageTag: string): Spare | undefined {
    const usable = this.now().getTime() - SPARE_USE_MS;
    while (this.spares.length) {
      const spare = this.spares.shift()!;
      if (spare.imageTag === imageTag && spare.madeAt > usable) return spare;
      this.discard(spare);
    }
    return undefined;
  }

  /** A spare taken and not used (the claim found a pool member): ready for the next cold start. */
  giveBack(spare: Spare) {
    if (this.closed) this.discard(spare);
    else this.spares.unshift(spare);
  }

  /** Tops the spares up in the background (after one was taken, and on the manager's interval). */
  refillSoon() {
    if (!this.enabled) return;
    setImmediate(() => {
      this.fill().catch((error) => log.warn("could not prepare sandbox spares", { error }));
    });
  }

  /** Makes spares up to the size, after the network check (ahead); resolves when done. */
  fill(): Promise<void> {
    if (!this.enabled) return Promise.resolve();
    return this.filling.request();
  }

  private async fillLoop() {
    const imageTag = await this.containers.image();
    await this.containers
      .checkIsolationAhead(ISOLATION_AHEAD_MS, imageTag)
      .catch((error) => log.warn("could not check the sandbox network ahead", { error }));
    while (!this.closed && this.spares.length < this.size) {
      const sandboxId = randomUUID();
      const madeAt = this.now().getTime();
      const prepared = await this.containers.prepare({
        sandboxId,
        image: imageTag,
        owner: SPARE_OWNER,
        expiresAt: new Date(madeAt + SPARE_MAX_AGE_MS),
      });
      if (!prepared) return;
      const spare = { sandboxId, handle: prepared.handle, imageTag, madeAt };
      if (this.closed) this.discard(spare);
      else this.spares.push(spare);
    }
  }

  /** Removes every spare (shutdown, tests); a fill under way ends first. */
  async close() {
    this.closed = true;
    await this.filling.settled();
    const spares = this.spares.splice(0);
    await Promise.all(spares.map((spare) => this.containers.removeContainer(spare.handle).catch(() => {})));
  }

  private discard(spare: Spare) {
    this.containers
      .removeContainer(spare.handle)
      .catch((error) => log.warn("could not remove a sandbox spare", { sandboxId: spare.sandboxId, error }));
  }
}
