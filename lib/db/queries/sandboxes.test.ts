/**
 * The sandbox rules that must hold across app instances, checked with concurrent calls, on PostgreSQL and on
 * the in-memory database (PGlite) alike.
 */
import { describe, expect, it } from "vitest";
import { STORES, useStore } from "@/lib/db/testing";
import {
  claimSandboxForUser,
  insertUser,
  reservePoolSlot,
  takeSandboxLease,
  transitionSandbox,
  type NewSandbox,
} from "@/lib/db/queries";

let counter = 0;
const now = new Date("2030-01-01T00:00:00Z");
const later = new Date(now.getTime() + 3600_000);

function row(status: "warming" | "starting", userId: string | null = null): NewSandbox {
  return {
    id: `sbx-${counter++}`,
    status,
    userId,
    imageTag: "img",
    createdAt: new Date(now.getTime() + counter),
    lastUsedAt: now,
    expiresAt: later,
  };
}

async function user() {
  const id = `user-${counter++}`;
  await insertUser({ id, email: `${id}@example.com`, name: null, passwordHash: "x", createdAt: now });
  return id;
}

describe.each(STORES)("sandbox queries on %s", (kind) => {
  useStore(kind);

  it("hands out at most SANDBOX_MAX sandboxes when many claims arrive at once", async () => {
    const userId = await user();
    const claims = await Promise.all(
      Array.from({ length: 10 }, () =>
        claimSandboxForUser({
          userId,
          siteId: null,
          max: 3,
          maxPerUser: 100,
          now,
          expiresAt: later,
          cold: row("starting", userId),
        }),
      ),
    );
    expect(claims.filter((c) => c.outcome === "cold").length).toBe(3);
    expect(claims.filter((c) => c.outcome === "capacity_reached").length).toBe(7);
  });

  it("hands one user at most their share when many of their claims arrive at once, and others still get one", async () => {
    const greedy = await user();
    const other = await user();
    const claim = (userId: string) =>
      claimSandboxForUser({
        userId,
        siteId: null,
        max: 100,
        maxPerUser: 3,
        now,
        expiresAt: later,
        cold: row("starting", userId),
      });
    const claims = await Promise.all(Array.from({ length: 10 }, () => claim(greedy)));
    expect(claims.filter((c) => c.outcome === "cold").length).toBe(3);
    const refused = claims.filter((c) => c.outcome === "capacity_reached");
    expect(refused.length).toBe(7);
    for (const r of refused) expect(r).toMatchObject({ limit: "user" });
    expect((await claim(other)).outcome).toBe("cold");
  });

  it("gives each warm pool member to exactly one sandbox", async () => {
    const pooled: string[] = [];
    for (let i = 0; i < 3; i++) {
      const reserved = await reservePoolSlot({ poolSize: 100, row: row("warming") });
      await transitionSandbox({ id: reserved!.id, from: ["warming"], to: "pooled" });
      pooled.push(reserved!.id);
    }
    const userId = await user();
    const claims = await Promise.all(
      Array.from({ length: 6 }, () =>
        claimSandboxForUser({
          userId,
          siteId: null,
          max: 100,
          maxPerUser: 100,
          now,
          expiresAt: later,
          cold: row("starting", userId),
        }),
      ),
    );
    const taken = claims.filter((c) => c.outcome === "pooled").map((c) => (c.outcome === "pooled" ? c.sandbox.id : ""));
    expect(taken.sort()).toEqual([...pooled].sort());
    expect(claims.filter((c) => c.outcome === "cold").length).toBe(3);
    for (const claim of claims)
      if (claim.outcome === "pooled") expect(claim.sandbox).toMatchObject({ status: "ready", userId, fromPool: true });
  });

  it("fills the pool only up to its size when several instances reserve at once", async () => {
    const before = await reservePoolSlot({ poolSize: 0, row: row("warming") });
    expect(before).toBeUndefined();
    // 3 pool rows exist from the test before, all taken; none is warming or pooled now.
    const reservations = await Promise.all(
      Array.from({ length: 5 }, () => reservePoolSlot({ poolSize: 2, row: row("warming") })),
    );
    expect(reservations.filter(Boolean).length).toBe(2);
  });

  it("grants the GC lease to one holder at a time, and to another once it expires", async () => {
    const name = `gc-${kind}`;
    const results = await Promise.all(
      ["a", "b", "c"].map((holder) => takeSandboxLease({ name, holder, now, until: new Date(now.getTime() + 60_000) })),
    );
    expect(results.filter(Boolean).length).toBe(1);
    const winner = ["a", "b", "c"][results.indexOf(true)]!;
    expect(await takeSandboxLease({ name, holder: winner, now, until: new Date(now.getTime() + 60_000) })).toBe(true);
    const afterExpiry = new Date(now.getTime() + 61_000);
    const next = winner === "a" ? "b" : "a";
    expect(
      await takeSandboxLease({ name, holder: next, now: afterExpiry, until: new Date(afterExpiry.getTime() + 60_000) }),
    ).toBe(true);
    expect(await takeSandboxLease({ name, holder: winner, now: afterExpiry, until: later })).toBe(false);
  });
});
