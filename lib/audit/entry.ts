/**
 * One entry of a site's audit chain and how it is sealed (docs/teams.md, "The chain"): `hash` is the hex SHA-256 of
 * the entry without `hash` in canonical JSON (RFC 8785, JCS: sorted keys, ECMAScript number and string forms);
 * `prev` is the previous entry's hash (64 zeros before the first); a checkpoint's `signature` is Ed25519 over the
 * canonical JSON of the entry without `hash` and `signature`. Pure: the verifier runs it offline.
 */
import { createHash } from "node:crypto";
import { canonicalJson } from "@/lib/canonical-json";
import type { Actor } from "@/lib/db/schema";

export const GENESIS_PREV = "0".repeat(64);
export const CHECKPOINT_ACTION = "checkpoint";

export type AuditEntry = {
  seq: number;
  at: string;
  actor: Actor | null;
  action: string;
  subject: Record<string, unknown>;
  details: Record<string, unknown>;
  prev: string;
  hash: string;
  signature?: string;
};

/** What a checkpoint's `details` hold: the last entry it seals, where the chain starts now, and the key. */
export type CheckpointDetails = { through: number; start: number; keyId: string; publicKey: string };

export type UnsealedEntry = Omit<AuditEntry, "hash" | "signature">;

export function entryHash(entry: Omit<AuditEntry, "hash">): string {
  const { hash: _ignored, ...rest } = entry as AuditEntry;
  return createHash("sha256").update(canonicalJson(rest), "utf8").digest("hex");
}

/** The bytes a checkpoint's signature covers. */
export function signingInput(entry: Omit<AuditEntry, "hash" | "signature">): Buffer {
  const { hash: _h, signature: _s, ...rest } = entry as AuditEntry;
  return Buffer.from(canonicalJson(rest), "utf8");
}

/** The entry as exported: a checkpoint carries `signature`, any other entry has no such key. */
export function sealEntry(entry: UnsealedEntry, signature?: string): AuditEntry {
  const signed = signature ? { ...entry, signature } : { ...entry };
  return { ...signed, hash: entryHash(signed) };
}
