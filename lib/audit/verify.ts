/**
 * Offline verification of an exported audit log (JSON Lines), as `npm run audit:verify` runs it: each line's hash
 * matches its content, follows the line before (seq + 1, `prev` = its hash), every checkpoint is signed, the log
 * starts where its last checkpoint says the chain starts, and ends with a checkpoint (so a cut tail shows). The
 * first line that does not fit is named; nothing after it is trusted.
 */
import { z } from "zod";
import { type AuditEntry, CHECKPOINT_ACTION, entryHash, GENESIS_PREV, signingInput } from "./entry";
import { keyIdOf, verifySignature } from "./keys";

export type VerifyOutcome =
  | { ok: true; entries: number; checkpoints: number; keyIds: string[]; first: number; last: number }
  | { ok: false; line: number; reason: string };

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);
const entrySchema = z
  .object({
    seq: z.number().int().positive(),
    at: z.string(),
    actor: z
      .object({ userId: z.string(), name: z.string(), door: z.string(), client: z.string().optional() })
      .nullable(),
    action: z.string().min(1),
    subject: z.record(z.string(), z.unknown()),
    details: z.record(z.string(), z.unknown()),
    prev: hex64,
    hash: hex64,
    signature: z.string().optional(),
  })
  .strict();
const checkpointSchema = z.object({
  through: z.number().int().nonnegative(),
  start: z.number().int().positive(),
  keyId: z.string(),
  publicKey: z.string(),
});

type Check = { line: number; reason: string } | undefined;
const bad = (line: number, reason: string) => ({ line, reason });

function parseLine(text: string, line: number): AuditEntry | { line: number; reason: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return bad(line, "not a JSON value");
  }
  const parsed = entrySchema.safeParse(raw);
  if (!parsed.success) return bad(line, `not an audit entry (${parsed.error.issues[0]?.path.join(".") || "shape"})`);
  return parsed.data as AuditEntry;
}

function checkCheckpoint(entry: AuditEntry, line: number, pinned: Set<string> | undefined): Check {
  const details = checkpointSchema.safeParse(entry.details);
  if (!details.success || !entry.signature) return bad(line, "a checkpoint without its signature or key");
  if (details.data.through !== entry.seq - 1)
    return bad(line, "a checkpoint that seals another entry than the one before it");
  if (keyIdOf(details.data.publicKey) !== details.data.keyId)
    return bad(line, "a checkpoint whose key id does not match its key");
  if (pinned && !pinned.has(details.data.publicKey))
    return bad(line, "a checkpoint signed by a key that is not the trusted one");
  if (!verifySignature(details.data.publicKey, signingInput(entry), entry.signature))
    return bad(line, "a checkpoint whose signature does not verify");
  return undefined;
}

function checkLink(entry: AuditEntry, before: AuditEntry | undefined, line: number): Check {
  if (entryHash(entry) !== entry.hash) return bad(line, "its hash does not match its content (the entry was edited)");
  if (entry.signature !== undefined && entry.action !== CHECKPOINT_ACTION)
    return bad(line, "a signature on an entry that is not a checkpoint");
  if (!before) {
    const genesis = entry.seq === 1 && entry.prev === GENESIS_PREV;
    if (!genesis && entry.action !== CHECKPOINT_ACTION)
      return bad(line, "the log starts in the middle of the chain, not at a checkpoint");
    return undefined;
  }
  if (entry.seq !== before.seq + 1)
    return bad(
      line,
      `expected entry ${before.seq + 1}, found entry ${entry.seq} (an entry is missing, moved or added)`,
    );
  if (entry.prev !== before.hash)
    return bad(line, "it does not follow the entry before it (prev is not that entry's hash)");
  return undefined;
}

/** Verifies a whole export. `trustedKeys`: base64url public keys to accept (default: each checkpoint's own key). */
export function verifyAuditLog(text: string, trustedKeys?: string[]): VerifyOutcome {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const pinned = trustedKeys?.length ? new Set(trustedKeys) : undefined;
  const entries: AuditEntry[] = [];
  const keyIds = new Set<string>();
  for (let i = 0; i < lines.length; i++) {
    const parsed = parseLine(lines[i]!, i + 1);
    if ("reason" in parsed) return { ok: false, ...parsed };
    const problem =
      checkLink(parsed, entries.at(-1), i + 1) ??
      (parsed.action === CHECKPOINT_ACTION ? checkCheckpoint(parsed, i + 1, pinned) : undefined);
    if (problem) return { ok: false, ...problem };
    if (parsed.action === CHECKPOINT_ACTION) keyIds.add(String(parsed.details.keyId));
    entries.push(parsed);
  }
  const last = entries.at(-1);
  if (!last || last.action !== CHECKPOINT_ACTION)
    return bad2(lines.length + 1, "the log does not end with a signed checkpoint (its end was cut or added to)");
  const start = (last.details as CheckpointDetails).start;
  if (entries[0]!.seq !== start)
    return bad2(1, `the log should start at entry ${start}, found entry ${entries[0]!.seq}`);
  return {
    ok: true,
    entries: entries.length,
    checkpoints: entries.filter((e) => e.action === CHECKPOINT_ACTION).length,
    keyIds: [...keyIds],
    first: entries[0]!.seq,
    last: last.seq,
  };
}

type CheckpointDetails = z.infer<typeof checkpointSchema>;
const bad2 = (line: number, reason: string): VerifyOutcome => ({ ok: false, line, reason });
