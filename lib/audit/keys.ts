/**
 * The service's audit key (Ed25519): `AUDIT_SIGNING_KEY` (a 32-byte seed in hex), or, unset, a seed derived from
 * ENCRYPTION_KEY (itself generated once in development), so every instance and restart sign with the same key.
 * The public key is published at `GET /.well-known/sitewright-audit-key`.
 */
import { createHash, createPrivateKey, createPublicKey, hkdfSync, type KeyObject, sign, verify } from "node:crypto";
import { env } from "@/lib/env";
import { processState } from "@/lib/process-state";

/** PKCS#8 DER header of an Ed25519 private key, followed by its 32-byte seed (RFC 8410). */
const PKCS8_ED25519 = Buffer.from("302e020100300506032b657004220420", "hex");
/** SPKI DER header of an Ed25519 public key, followed by its 32 raw bytes. */
const SPKI_ED25519 = Buffer.from("302a300506032b6570032100", "hex");

export type AuditKey = { privateKey: KeyObject; publicKey: string; keyId: string };

export function auditKeyFromSeed(seed: Buffer): AuditKey {
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: "der", type: "pkcs8" });
  const raw = createPublicKey(privateKey).export({ format: "der", type: "spki" }).subarray(SPKI_ED25519.length);
  return { privateKey, publicKey: raw.toString("base64url"), keyId: keyIdOf(raw.toString("base64url")) };
}

/** A short, stable name for a public key: the first 16 hex of its SHA-256. */
export const keyIdOf = (publicKey: string) =>
  createHash("sha256").update(Buffer.from(publicKey, "base64url")).digest("hex").slice(0, 16);

function configuredSeed(): Buffer {
  const { AUDIT_SIGNING_KEY, ENCRYPTION_KEY } = env();
  if (AUDIT_SIGNING_KEY) return Buffer.from(AUDIT_SIGNING_KEY, "hex");
  return Buffer.from(hkdfSync("sha256", Buffer.from(ENCRYPTION_KEY, "hex"), "", "sitewright audit key", 32));
}

export function auditKey(): AuditKey {
  return processState("audit.key", () => auditKeyFromSeed(configuredSeed()));
}

export function signWith(key: AuditKey, data: Buffer): string {
  return sign(null, data, key.privateKey).toString("base64url");
}

export function verifySignature(publicKey: string, data: Buffer, signature: string): boolean {
  try {
    const key = createPublicKey({
      key: Buffer.concat([SPKI_ED25519, Buffer.from(publicKey, "base64url")]),
      format: "der",
      type: "spki",
    });
    return verify(null, data, key, Buffer.from(signature, "base64url"));
  } catch {
    return false;
  }
}

/** What `/.well-known/sitewright-audit-key` answers. */
export function publicAuditKey() {
  const key = auditKey();
  return {
    alg: "Ed25519",
    keyId: key.keyId,
    publicKey: key.publicKey,
    jwk: { kty: "OKP", crv: "Ed25519", x: key.publicKey, kid: key.keyId },
  };
}
