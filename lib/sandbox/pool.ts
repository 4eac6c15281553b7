/**
 * The warm pool: sandboxes started ahead of demand so a user's new sandbox is ready at once. One pool per
 * deployment: its size holds across app instances (`reservePoolSlot` decides in the database), and one instance
 * fills it at a time, under the `sandbox-pool` lease (one fill at a time per process besides).
 */
import { randomUUID } from "node:crypto";
import { releaseSandboxLease, reservePoolSlot, takeSandboxLease } from "@/lib/db/queries";
import type { Sandbox } from "@/lib/db/schema";
import { log } from "@/lib/log";
import { SerialFill } from "./serial-fill";

/** What the pool needs from the containers unit. */
export type PoolContainers = {
  image(): Promise<string>;
  launch(row: Sandbox, finalStatus: "pooled"): Promise<Sandbox>;
  destroy(sandbox: Sandbox): Promise<void>;
};

export type PoolSettings = {
  /** SANDBOX_POOL_SIZE; 0 turns the pool off. */
  size: number;
  /** A pool member older than this is replaced, so the pool never serves a stale image. */
  maxAgeMinutes: number;
  /** This instance's name in leases. */
  holder: string;
};

export const POOL_LEASE = "sandbox-pool";
/** The fill renews its lease before each member; a holder that died lets go after this long. */
const POOL_LEASE_MS = 2 * 60_000;

export class SandboxPool {
  private readonly filling = new SerialFill(() => (this.closed ? Promise.resolve() : this.fillLoop()));
  private closed = false;

  constructor(
    private readonly containers: PoolContainers,
    private readonly settings: PoolSettings,
    private readonly now: () => Date,
  ) {}

  /**
   * Tops the pool up to its size; resolves when it is full, or at once when the pool is off or closed or another
   * instance holds the pool lease (that one fills it).
   */
  fill(): Promise<void> {
    if (this.settings.size === 0 || this.closed) return Promise.resolve();
    return this.filling.request();
  }

  /** Refills in the background, after a member was taken. */
  refillSoon() {
    setImmediate(() => {
      this.fill().catch((error) => log.warn("sandbox pool refill failed", { error }));
    });
  }

  /** Stops filling and waits for a fill under way. */
  async close() {
    this.closed = true;
    await this.filling.settled();
  }

  /** Takes or renews the pool lease; false when another instance holds it (then that one fills). */
  private takeLease(): Promise<boolean> {
    const now = this.now();
    return takeSandboxLease({
      name: POOL_LEASE,
      holder: this.settings.holder,
      now,
      until: new Date(now.getTime() + POOL_LEASE_MS),
    });
  }

  private async fillLoop() {
    if (!(await this.takeLease())) return;
    try {
      await this.fillUnderLease();
    } finally {
      await releaseSandboxLease({ name: POOL_LEASE, holder: this.settings.holder }).catch((error) =>
        log.warn("could not let go of the sandbox pool lease", { error }),
      );
    }
  }

  private async fillUnderLease() {
    const imageTag = await this.containers.image();
    while (!this.closed && (await this.takeLease())) {
      const now = this.now();
      const row = await reservePoolSlot({
        poolSize: this.settings.size,
        row: {
          id: randomUUID(),
          status: "warming",
          userId: null,
          imageTag,
          fromPool: true,
          createdAt: now,
          lastUsedAt: now,
          // A pool member is recycled after maxAgeMinutes; once taken, its sandbox's expiry replaces this.
          expiresAt: new Date(now.getTime() + this.settings.maxAgeMinutes * 60_000),
        },
      });
      if (!row) return;
      try {
        await this.containers.launch(row, "pooled");
      } catch (error) {
        await this.containers.destroy(row).catch(() => {});
        throw error;
      }
    }
  }
}
