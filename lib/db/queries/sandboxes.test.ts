/**
 * The sandbox rules that must hold across app instances, checked with concurrent calls, on PostgreSQL and on
 * the in-memory database (PGlite) alike.
 */
import { describe, expect, it } from "vitest";
import { STORES, useStore } from "@/lib/db/testing";
import {
  claimSandboxForUser,
  deleteDeploymentSetting,
  findDeploymentSetting,
  findNetworkCheck,
  insertUser,
  listNetworkChecks,
  recordNetworkCheck,
  releaseSandboxLease,
  reservePoolSlot,
  listDeploymentSettings,
  setDeploymentSetting,
  takeSandboxLease,
  transitionSandbox,
  updateSandbox,
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

  it("lets a holder release its lease for another to take at once, and never releases someone else's", async () => {
    const name = `pool-${kind}`;
    const until = new Date(now.getTime() + 60_000);
    expect(await takeSandboxLease({ name, holder: "a", now, until })).toBe(true);
    await releaseSandboxLease({ name, holder: "b" });
    expect(await takeSandboxLease({ name, holder: "b", now, until })).toBe(false);
    await releaseSandboxLease({ name, holder: "a" });
    expect(await takeSandboxLease({ name, holder: "b", now, until })).toBe(true);
  });

  it("stores where a sandbox runs: its endpoint, node and driver", async () => {
    const reserved = await reservePoolSlot({ poolSize: 100, row: row("warming") });
    const placed = await updateSandbox({
      id: reserved!.id,
      containerId: "pod-1",
      endpoint: "http://10.244.7.5:8080",
      node: "node-a",
      driver: "kubernetes",
    });
    expect(placed).toMatchObject({ endpoint: "http://10.244.7.5:8080", node: "node-a", driver: "kubernetes" });
  });

  it("keeps one deployment-wide value per key, the last one written", async () => {
    expect(await findDeploymentSetting({ key: `image-${kind}` })).toBeUndefined();
    await setDeploymentSetting({ key: `image-${kind}`, value: "one", now });
    await setDeploymentSetting({ key: `image-${kind}`, value: "two", now: later });
    expect(await findDeploymentSetting({ key: `image-${kind}` })).toBe("two");
  });

  it("lists deployment-wide values by the start of their key (taken as text, not a pattern), and deletes one", async () => {
    const prefix = `used_${kind}:`;
    await setDeploymentSetting({ key: `${prefix}b/c:1`, value: "x", now: later });
    await setDeploymentSetting({ key: `${prefix}a%`, value: "y", now });
    await setDeploymentSetting({ key: `usedX${kind}:other`, value: "z", now }); // "_" would match X as a pattern
    expect((await listDeploymentSettings({ prefix })).map((setting) => setting.key)).toEqual([
      `${prefix}a%`,
      `${prefix}b/c:1`,
    ]);
    await deleteDeploymentSetting({ key: `${prefix}a%` });
    expect((await listDeploymentSettings({ prefix })).map((setting) => setting.key)).toEqual([`${prefix}b/c:1`]);
  });

  it("remembers the network check per deployment and node, newest first, and forgets old ones", async () => {
    const namespace = `ns-${kind}`;
    const check = { namespace, driver: "kubernetes" as const, outcome: "ipv6 off", checkedAt: now };
    await recordNetworkCheck({ ...check, node: "node-a", isolated: false });
    await recordNetworkCheck({ ...check, node: "node-a", isolated: true, checkedAt: later });
    await recordNetworkCheck({ ...check, node: "node-b", isolated: false });
    await recordNetworkCheck({ ...check, namespace: "elsewhere", node: "node-c", isolated: true });
    const since = new Date(now.getTime() - 1);
    expect(await findNetworkCheck({ namespace, driver: "kubernetes", node: "node-a", since })).toMatchObject({
      isolated: true,
    });
    expect(await findNetworkCheck({ namespace, driver: "docker", node: "node-a", since })).toBeUndefined();
    expect(await findNetworkCheck({ namespace, driver: "kubernetes", node: "node-b", since: now })).toBeUndefined();
    const listed = await listNetworkChecks({ namespace, since });
    expect(listed.map((c) => [c.node, c.isolated])).toEqual([
      ["node-a", true],
      ["node-b", false],
    ]);
  });
});
