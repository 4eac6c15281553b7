import { describe, expect, it } from "vitest";
import { CURRENT_PARAMS, hashPassword, needsRehash, scrypt, verifyPassword } from "./password";

describe("password hashing", () => {
  it("matches the RFC 7914 scrypt test vector", async () => {
    const key = await scrypt("password", Buffer.from("NaCl"), 64, { logN: 10, r: 8, p: 16 });
    expect(key.toString("hex")).toBe(
      "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640",
    );
  });

  it("stores a salted hash with its parameters, never the password", async () => {
    const password = "correct horse battery staple 42";
    const first = await hashPassword(password);
    const second = await hashPassword(password);
    expect(first).not.toContain(password);
    expect(first).toMatch(/^\$scrypt\$ln=17,r=8,p=1\$/);
    expect(first).not.toBe(second); // per-hash random salt
    expect(await verifyPassword(password, first)).toBe(true);
    expect(await verifyPassword(`${password}!`, first)).toBe(false);
  });

  it("verifies a hash made with older parameters and asks for a rehash", async () => {
    const old = await hashPassword("an older password of some length", { logN: 14, r: 8, p: 1 });
    expect(await verifyPassword("an older password of some length", old)).toBe(true);
    expect(needsRehash(old)).toBe(true);
    expect(needsRehash(await hashPassword("a current password of some length"))).toBe(false);
    expect(CURRENT_PARAMS).toEqual({ logN: 17, r: 8, p: 1 });
  });

  it("never verifies a malformed stored hash", async () => {
    for (const stored of ["", "plain", "$scrypt$ln=17,r=8,p=1$AAAA$AAAA", "$scrypt$ln=x,r=8,p=1$a$b"]) {
      expect(await verifyPassword("whatever password here", stored)).toBe(false);
    }
  });
});

describe("hashing concurrency", () => {
  it("runs at most the configured number of hashes at once, leaving a core for requests", async () => {
    const { hashConcurrency, hashLoad } = await import("./password");
    const { resetEnvForTests } = await import("@/lib/env");
    resetEnvForTests({ PASSWORD_HASH_CONCURRENCY: "2" });
    try {
      expect(hashConcurrency()).toBe(2);
      let peak = 0;
      const sampler = setInterval(() => (peak = Math.max(peak, hashLoad().running)), 5);
      const hashes = Array.from({ length: 6 }, (_, i) =>
        scrypt(`pw${i}`, Buffer.from("salt"), 32, { logN: 14, r: 8, p: 1 }),
      );
      expect(hashLoad().running + hashLoad().waiting).toBe(6);
      const keys = await Promise.all(hashes);
      clearInterval(sampler);
      expect(new Set(keys.map((k) => k.toString("hex"))).size).toBe(6);
      expect(peak).toBe(2);
      expect(hashLoad()).toEqual({ running: 0, waiting: 0 });
    } finally {
      resetEnvForTests({ PASSWORD_HASH_CONCURRENCY: undefined });
    }
    expect(hashConcurrency()).toBe(Math.max(1, (await import("node:os")).availableParallelism() - 1));
  });
});
