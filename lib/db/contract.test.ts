/**
 * The data layer's contract, run against both stores the app can use: PGlite in memory (the default) and a real
 * PostgreSQL. If the two ever drift, one side of this file fails.
 */
import { describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { STORES, useStore } from "./testing";
import {
  deleteSession,
  deleteSessionsIdleOrExpired,
  findSessionWithUser,
  findUserByEmail,
  findLatestPairingByUrl,
  incrementRateLimit,
  incrementRateLimitChain,
  insertPairing,
  recordFailedRedeem,
  redeemPendingPairing,
  insertSession,
  insertUser,
  touchSession,
} from "./queries";

describe.each(STORES)("the data layer %s", (kind) => {
  useStore(kind);

  const newUser = (email: string) =>
    insertUser({ id: randomUUID(), email, name: null, passwordHash: "$scrypt$x", createdAt: new Date() });

  it("finds a user by email in any case", async () => {
    const user = await newUser("Mixed.Case@Example.com");
    expect(user?.email).toBe("Mixed.Case@Example.com");
    expect((await findUserByEmail({ email: "mixed.case@example.COM" }))?.id).toBe(user!.id);
  });

  it("refuses a duplicate email without throwing", async () => {
    expect(await newUser("dup@example.com")).toBeDefined();
    expect(await newUser("DUP@example.com")).toBeUndefined();
  });

  it("creates, touches, finds and deletes sessions", async () => {
    const user = (await newUser("sessions@example.com"))!;
    const created = new Date("2026-01-01T00:00:00Z");
    await insertSession({
      idHash: "h1",
      userId: user.id,
      createdAt: created,
      lastSeenAt: created,
      expiresAt: new Date("2026-02-01T00:00:00Z"),
    });
    await touchSession({ idHash: "h1", lastSeenAt: new Date("2026-01-02T00:00:00Z") });
    const found = await findSessionWithUser({ idHash: "h1" });
    expect(found?.user.id).toBe(user.id);
    expect(found?.session.lastSeenAt.toISOString()).toBe("2026-01-02T00:00:00.000Z");
    await deleteSession({ idHash: "h1" });
    expect(await findSessionWithUser({ idHash: "h1" })).toBeUndefined();
  });

  it("sweeps sessions that are idle or past their end", async () => {
    const user = (await newUser("sweep@example.com"))!;
    const t = (iso: string) => new Date(iso);
    await insertSession({
      idHash: "fresh",
      userId: user.id,
      createdAt: t("2026-01-10T00:00:00Z"),
      lastSeenAt: t("2026-01-10T00:00:00Z"),
      expiresAt: t("2026-02-10T00:00:00Z"),
    });
    await insertSession({
      idHash: "idle",
      userId: user.id,
      createdAt: t("2026-01-01T00:00:00Z"),
      lastSeenAt: t("2026-01-01T00:00:00Z"),
      expiresAt: t("2026-02-01T00:00:00Z"),
    });
    await insertSession({
      idHash: "ended",
      userId: user.id,
      createdAt: t("2025-12-01T00:00:00Z"),
      lastSeenAt: t("2026-01-10T00:00:00Z"),
      expiresAt: t("2026-01-09T00:00:00Z"),
    });
    const removed = await deleteSessionsIdleOrExpired({
      now: t("2026-01-10T12:00:00Z"),
      idleBefore: t("2026-01-05T00:00:00Z"),
    });
    expect(removed).toBe(2);
    expect(await findSessionWithUser({ idHash: "fresh" })).toBeDefined();
  });

  it("counts rate-limit hits atomically under concurrency", async () => {
    const hit = (windowStart: number) =>
      incrementRateLimit({ key: "k", windowStart, previousWindowStart: windowStart - 60_000 });
    const counts = await Promise.all(Array.from({ length: 40 }, () => hit(60_000)));
    expect(counts.map((c) => c.current).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(counts.every((c) => c.previous === 0)).toBe(true);
    expect(await hit(120_000)).toEqual({ current: 1, previous: 40 });
  });

  it("counts one attempt in a chain of buckets in one statement, stopping at the first bucket over its limit", async () => {
    const chain = (previousWeight = 0) =>
      incrementRateLimitChain({
        buckets: [
          { key: "chain:ip", limit: 2 },
          { key: "chain:account", limit: 3 },
        ],
        windowStart: 60_000,
        previousWindowStart: 0,
        previousWeight,
      });
    expect(await chain()).toEqual([
      { current: 1, previous: 0 },
      { current: 1, previous: 0 },
    ]);
    expect((await chain()).map((c) => c.current)).toEqual([2, 2]);
    // The first bucket is over its limit: the second is not reached, so it is not counted.
    expect((await chain()).map((c) => c.current)).toEqual([3, 0]);
    const after = await incrementRateLimit({ key: "chain:account", windowStart: 60_000, previousWindowStart: 0 });
    expect(after.current).toBe(3);
    // The previous window counts with its weight: 1 now + 2 × 0.5 > 1 refuses at the first bucket.
    await incrementRateLimit({ key: "chain:w", windowStart: 0, previousWindowStart: -60_000 });
    await incrementRateLimit({ key: "chain:w", windowStart: 0, previousWindowStart: -60_000 });
    const weighted = await incrementRateLimitChain({
      buckets: [
        { key: "chain:w", limit: 1 },
        { key: "chain:w2", limit: 1 },
      ],
      windowStart: 60_000,
      previousWindowStart: 0,
      previousWeight: 0.5,
    });
    expect(weighted).toEqual([
      { current: 1, previous: 2 },
      { current: 0, previous: 0 },
    ]);
  });

  describe("pairings", () => {
    const at = new Date("2026-03-01T00:00:00Z");
    const pairing = async (url: string, userId: string) =>
      insertPairing({
        id: randomUUID(),
        userId,
        url,
        codeHmac: "h-right",
        codeExpiresAt: new Date(at.getTime() + 300_000),
        createdAt: at,
      });
    const redeem = (url: string, codeHmac: string) =>
      redeemPendingPairing({
        url,
        codeHmac,
        now: at,
        maxAttempts: 5,
        restUrl: `${url}/wp-json/`,
        pluginVersion: "1",
        siteInfo: { name: "x" },
        name: "x",
        pageBuilder: null,
        encryptCredentials: (id) => `sealed-for-${id}`,
      });

    it("supersede the pending pairing of the same URL", async () => {
      const user = (await newUser("pair1@example.com"))!;
      const first = await pairing("https://a.example", user.id);
      const second = await pairing("https://a.example", user.id);
      expect((await findLatestPairingByUrl({ url: "https://a.example" }))?.id).toBe(second.id);
      expect(await redeem("https://a.example", "h-right")).toMatchObject({
        id: second.id,
        status: "redeemed",
        credentials: `sealed-for-${second.id}`,
      });
      expect(first.id).not.toBe(second.id);
    });

    it("redeem a code once, and only with the right code", async () => {
      const user = (await newUser("pair2@example.com"))!;
      await pairing("https://b.example", user.id);
      expect(await redeem("https://b.example", "h-wrong")).toBeUndefined();
      const results = await Promise.all(Array.from({ length: 5 }, () => redeem("https://b.example", "h-right")));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it("keep pairings of one URL by different users, and supersede only the user's own", async () => {
      const one = (await newUser("pair4@example.com"))!;
      const two = (await newUser("pair5@example.com"))!;
      const mine = await insertPairing({
        id: randomUUID(),
        userId: one.id,
        url: "https://d.example",
        codeHmac: "h-one",
        codeExpiresAt: new Date(at.getTime() + 300_000),
        createdAt: at,
      });
      const theirs = await Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          insertPairing({
            id: randomUUID(),
            userId: two.id,
            url: "https://d.example",
            codeHmac: `h-two-${i}`,
            codeExpiresAt: new Date(at.getTime() + 300_000),
            createdAt: new Date(at.getTime() + i),
          }),
        ),
      );
      expect(theirs).toHaveLength(4);
      expect(await redeem("https://d.example", "h-one")).toMatchObject({ id: mine.id, status: "redeemed" });
      const pending = await Promise.all(theirs.map((row) => redeem("https://d.example", row.codeHmac)));
      expect(pending.filter(Boolean)).toHaveLength(1);
    });

    it("count a wrong code against every pending pairing of the URL, locking each at its own fifth", async () => {
      const one = (await newUser("pair6@example.com"))!;
      const two = (await newUser("pair7@example.com"))!;
      const first = await pairing("https://e.example", one.id);
      const second = await pairing("https://e.example", two.id);
      const counted = await Promise.all(
        Array.from({ length: 8 }, () => recordFailedRedeem({ url: "https://e.example", now: at, maxAttempts: 5 })),
      );
      const rows = counted.flat();
      for (const id of [first.id, second.id]) {
        const mine = rows.filter((row) => row.id === id);
        expect(mine).toHaveLength(5);
        expect(mine.filter((row) => row.status === "locked")).toHaveLength(1);
      }
      expect(await redeem("https://e.example", "h-right")).toBeUndefined();
    });

    it("lock a pairing at exactly the fifth counted failure", async () => {
      const user = (await newUser("pair3@example.com"))!;
      const site = await pairing("https://c.example", user.id);
      const counted = await Promise.all(
        Array.from({ length: 8 }, () => recordFailedRedeem({ url: "https://c.example", now: at, maxAttempts: 5 })),
      );
      const landed = counted.flat();
      expect(landed).toHaveLength(5);
      expect(landed.every((row) => row.id === site.id)).toBe(true);
      expect(landed.map((row) => row.status).filter((status) => status === "locked")).toHaveLength(1);
      expect(await redeem("https://c.example", "h-right")).toBeUndefined();
    });
  });
});
