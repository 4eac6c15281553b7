import { describe, expect, it } from "vitest";
import { useTestDatabase } from "@/lib/db/testing";
import { call } from "@/test/http";
import { POST as signup } from "./signup/route";
import { POST as login } from "./login/route";

useTestDatabase();

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

describe("login timing", () => {
  it("takes the same time for an unknown email as for a wrong password (medians within 10% over 50 tries)", async () => {
    const email = `timing${Date.now()}@example.com`;
    expect((await call(signup, { body: { email, password: "the real passphrase is long" } })).status).toBe(201);
    const timeLogin = async (address: string) => {
      const start = performance.now();
      const res = await call(login, { body: { email: address, password: "a wrong passphrase, also long" } });
      expect(res.status).toBe(401);
      return performance.now() - start;
    };
    await timeLogin(email); // warm up
    const known: number[] = [];
    const unknown: number[] = [];
    // Interleaved, and alternating which goes first, so a slow stretch of the machine weighs on both alike.
    for (let i = 0; i < 50; i++) {
      if (i % 2 === 0) {
        known.push(await timeLogin(email));
        unknown.push(await timeLogin(`nobody${i}@example.com`));
      } else {
        unknown.push(await timeLogin(`nobody${i}@example.com`));
        known.push(await timeLogin(email));
      }
    }
    const ratio = median(unknown) / median(known);
    expect(ratio).toBeGreaterThan(0.9);
    expect(ratio).toBeLessThan(1.1);
  }, 240_000);
});
