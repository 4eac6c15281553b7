/**
 * Appending to a site's audit chain, its checkpoints, export and retention (docs/teams.md). Every act a person or
 * client does on a site goes through `recordAudit`; a signed checkpoint follows every AUDIT_CHECKPOINT_EVERY entries
 * and each export, so an exported log can be checked offline against the service's public key alone.
 */
import { now } from "@/lib/clock";
import { appendAuditRows, type ChainTip, cutAuditChain, findCheckpointBefore, listAuditRows } from "@/lib/db/queries";
import type { Actor, AuditEntryRow } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { type AuditEntry, CHECKPOINT_ACTION, GENESIS_PREV, sealEntry, signingInput, type UnsealedEntry } from "./entry";
import { auditKey, signWith } from "./keys";

/** The acts the chain records (docs/teams.md lists what each one's subject and details hold). */
export type AuditAction =
  | "turn"
  | "approve"
  | "deny"
  | "apply"
  | "undo"
  | "discard"
  | "reject"
  | "edit"
  | "job_start"
  | "grant"
  | "member_invite"
  | "member_join"
  | "member_role"
  | "member_remove"
  | "setting"
  | "sign_in"
  | "export";

export type AuditAct = {
  siteId: string;
  actor: Actor | null;
  action: AuditAction;
  subject?: Record<string, unknown>;
  details?: Record<string, unknown>;
};

const DAY_MS = 24 * 60 * 60 * 1000;

function checkpointAfter(siteId: string, tip: ChainTip | undefined, at: string): AuditEntry {
  const key = auditKey();
  const entry: UnsealedEntry = {
    seq: (tip?.seq ?? 0) + 1,
    at,
    actor: null,
    action: CHECKPOINT_ACTION,
    subject: { siteId },
    details: { through: tip?.seq ?? 0, start: tip?.first ?? 1, keyId: key.keyId, publicKey: key.publicKey },
    prev: tip?.hash ?? GENESIS_PREV,
  };
  return sealEntry(entry, signWith(key, signingInput(entry)));
}

function toRow(entry: AuditEntry) {
  return { ...entry, signature: entry.signature ?? null };
}

/** Appends one act (and a checkpoint when one is due). Returns the entry as it will be exported. */
export async function recordAudit(act: AuditAct): Promise<AuditEntry> {
  const every = env().AUDIT_CHECKPOINT_EVERY;
  const at = now().toISOString();
  const rows = await appendAuditRows({
    siteId: act.siteId,
    build: (tip) => {
      const entry = sealEntry({
        seq: (tip?.seq ?? 0) + 1,
        at,
        actor: act.actor,
        action: act.action,
        subject: { ...act.subject, siteId: act.siteId },
        details: act.details ?? {},
        prev: tip?.hash ?? GENESIS_PREV,
      });
      // Checkpoints land on every (N+1)th place: N entries, then their checkpoint.
      if ((entry.seq + 1) % (every + 1) !== 0) return [toRow(entry)];
      const next = { seq: entry.seq, hash: entry.hash, first: tip?.first ?? 1 };
      return [toRow(entry), toRow(checkpointAfter(act.siteId, next, at))];
    },
  });
  return rowToEntry(rows[0]!);
}

/** Records an act without failing the request it belongs to: the act happened; a lost entry is logged loudly. */
export async function recordAuditSafely(act: AuditAct): Promise<void> {
  try {
    await recordAudit(act);
  } catch (error) {
    log.error("could not append to the audit chain", { siteId: act.siteId, action: act.action, error });
  }
}

export async function appendCheckpoint(siteId: string): Promise<AuditEntry> {
  const at = now().toISOString();
  const [row] = await appendAuditRows({ siteId, build: (tip) => [toRow(checkpointAfter(siteId, tip, at))] });
  return rowToEntry(row!);
}

export function rowToEntry(row: AuditEntryRow): AuditEntry {
  const entry: AuditEntry = {
    seq: row.seq,
    at: row.at,
    actor: row.actor ?? null,
    action: row.action,
    subject: row.subject,
    details: row.details,
    prev: row.prev,
    hash: row.hash,
  };
  return row.signature ? { ...entry, signature: row.signature } : entry;
}

/**
 * Retention: entries older than `days` go, but only by cutting the chain at a checkpoint (the newest one at least
 * that old), so what stays starts at a signed entry and still verifies.
 */
export async function applyRetention(siteId: string, days: number | null | undefined): Promise<number> {
  if (!days) return 0;
  const before = new Date(now().getTime() - days * DAY_MS).toISOString();
  const checkpoint = await findCheckpointBefore({ siteId, before });
  if (!checkpoint) return 0;
  const removed = await cutAuditChain({ siteId, seq: checkpoint.seq });
  if (removed) log.info("audit chain cut at a checkpoint", { siteId, seq: checkpoint.seq, removed });
  return removed;
}

/** The whole chain as JSON Lines, ending with a checkpoint made now (so the tail is signed too). */
export async function exportAuditLog(input: { siteId: string; actor: Actor; retentionDays: number | null }) {
  await applyRetention(input.siteId, input.retentionDays);
  await recordAudit({ siteId: input.siteId, actor: input.actor, action: "export" });
  const checkpoint = await appendCheckpoint(input.siteId);
  // Up to its own checkpoint: an act appended meanwhile belongs to the next export.
  const rows = await listAuditRows({ siteId: input.siteId, through: checkpoint.seq });
  return `${rows.map((row) => JSON.stringify(rowToEntry(row))).join("\n")}\n`;
}
