import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { resetEnvForTests } from "../env";
import { decryptSecret, encryptSecret, reencryptSecret, UnreadableSecretError } from "./crypto";

const keyAtStart = process.env.ENCRYPTION_KEY;
afterEach(() => resetEnvForTests({ ENCRYPTION_KEY: keyAtStart, ENCRYPTION_KEY_PREVIOUS: undefined }));

function flip(blob: string, part: number): string {
  const parts = blob.split(".");
  const bytes = Buffer.from(parts[part]!, "base64url");
  bytes[0]! ^= 1;
  parts[part] = bytes.toString("base64url");
  return parts.join(".");
}

describe("credential encryption", () => {
  it("decrypts what it encrypted, for any text", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", maxLength: 300 }),
        (plain) => decryptSecret(encryptSecret(plain)) === plain,
      ),
    );
  });

  it("writes v1.<iv>.<tag>.<ciphertext> in base64url with a 12-byte IV and a 16-byte tag", () => {
    const blob = encryptSecret("swsec_abc");
    expect(blob).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    const [, iv, tag] = blob.split(".");
    expect(Buffer.from(iv!, "base64url")).toHaveLength(12);
    expect(Buffer.from(tag!, "base64url")).toHaveLength(16);
    expect(blob).not.toContain("swsec_abc");
  });

  it("uses a fresh IV every time, so one secret never encrypts the same way twice", () => {
    const blobs = new Set(Array.from({ length: 50 }, () => encryptSecret("same")));
    expect(blobs.size).toBe(50);
  });

  it("refuses a blob whose IV, tag or ciphertext was changed", () => {
    const blob = encryptSecret("a secret worth stealing");
    for (const part of [1, 2, 3]) expect(() => decryptSecret(flip(blob, part))).toThrow(UnreadableSecretError);
  });

  it("refuses malformed blobs and unknown versions", () => {
    const blob = encryptSecret("x");
    for (const bad of [
      "",
      "v1",
      "v1...",
      blob.replace(/^v1/, "v2"),
      `${blob}.extra`,
      blob.slice(0, -2),
      "v1.AAAA.AAAA.AAAA",
    ]) {
      expect(() => decryptSecret(bad), bad).toThrow(UnreadableSecretError);
    }
  });

  it("refuses a blob encrypted under another key", () => {
    const blob = encryptSecret("x");
    resetEnvForTests({ ENCRYPTION_KEY: "ff".repeat(32) });
    expect(() => decryptSecret(blob)).toThrow(UnreadableSecretError);
  });

  it("binds a blob to its associated data, so one site's secret cannot be moved to another", () => {
    const blob = encryptSecret("x", "site-1");
    expect(decryptSecret(blob, "site-1")).toBe("x");
    expect(() => decryptSecret(blob, "site-2")).toThrow(UnreadableSecretError);
    expect(() => decryptSecret(blob)).toThrow(UnreadableSecretError);
  });
});

describe("ENCRYPTION_KEY rotation", () => {
  const oldKey = "aa".repeat(32);
  const newKey = "bb".repeat(32);

  it("still opens a value sealed under a key listed in ENCRYPTION_KEY_PREVIOUS", () => {
    resetEnvForTests({ ENCRYPTION_KEY: oldKey });
    const blob = encryptSecret("swsec_old", "site-1");
    resetEnvForTests({ ENCRYPTION_KEY: newKey, ENCRYPTION_KEY_PREVIOUS: `${"cc".repeat(32)}, ${oldKey}` });
    expect(decryptSecret(blob, "site-1")).toBe("swsec_old");
    expect(() => decryptSecret(blob, "site-2")).toThrow(UnreadableSecretError);
  });

  it("re-encrypts a value under the new key, so it opens once the old key is dropped", () => {
    resetEnvForTests({ ENCRYPTION_KEY: oldKey });
    const blob = encryptSecret("swsec_old", "site-1");
    resetEnvForTests({ ENCRYPTION_KEY: newKey, ENCRYPTION_KEY_PREVIOUS: oldKey });
    const moved = reencryptSecret(blob, "site-1")!;
    expect(moved).toMatch(/^v1\./);
    expect(reencryptSecret(moved, "site-1")).toBeUndefined(); // already under the new key: nothing to do
    resetEnvForTests({ ENCRYPTION_KEY: newKey, ENCRYPTION_KEY_PREVIOUS: undefined });
    expect(decryptSecret(moved, "site-1")).toBe("swsec_old");
    expect(() => decryptSecret(blob, "site-1")).toThrow(UnreadableSecretError);
  });

  it("never seals under a previous key", () => {
    resetEnvForTests({ ENCRYPTION_KEY: newKey, ENCRYPTION_KEY_PREVIOUS: oldKey });
    const blob = encryptSecret("fresh");
    resetEnvForTests({ ENCRYPTION_KEY: oldKey, ENCRYPTION_KEY_PREVIOUS: undefined });
    expect(() => decryptSecret(blob)).toThrow(UnreadableSecretError);
  });
});
