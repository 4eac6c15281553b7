/**
 * The audit chain against real PostgreSQL (and the in-memory store): exports verify offline, concurrent appends never
 * fork, retention cuts only at a checkpoint, and any single edited, dropped, moved or inserted line of an export is
 * caught at that line (docs/teams.md, "The chain").
 */
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { advanceClockForTests, resetClockForTests } from "@/lib/clock";
import { listAuditRows } from "@/lib/db/queries";
import type { Actor } from "@/lib/db/schema";
import { STORES, useStore } from "@/lib/db/testing";
import { resetEnvForTests } from "@/lib/env";
import { appendCheckpoint, applyRetention, exportAuditLog, recordAudit } from "./chain";
import { type AuditEntry, entryHash } from "./entry";
import { auditKey, auditKeyFromSeed } from "./keys";
import { verifyAuditLog } from "./verify";

const alice: Actor = { userId: "u-alice", name: "Alice", door: "chat" };
const bot: Actor = { userId: "u-alice", name: "Alice", door: "mcp", client: "Claude Desktop" };

async function chainOf(entries: number) {
  const siteId = randomUUID();
  for (let i = 0; i < entries; i++) {
    await recordAudit({
      siteId,
      actor: i % 3 === 0 ? bot : alice,
      action: i % 2 ? "approve" : "turn",
      subject: { changeSetId: `set-${i}` },
      details: { message: `ask ${i} “quoted” ✓`, n: i, nested: { b: [1, 2.5, null], a: true } },
    });
  }
  return { siteId, log: await exportAuditLog({ siteId, actor: alice, retentionDays: null }) };
}

const linesOf = (log: string) => log.trimEnd().split("\n");
const join = (lines: string[]) => `${lines.join("\n")}\n`;

afterEach(() => {
  resetClockForTests();
  resetEnvForTests({ AUDIT_CHECKPOINT_EVERY: undefined });
});

describe.each(STORES)("the audit chain on %s", (kind) => {
  useStore(kind);

  it("exports JSON Lines that verify offline, with the service's public key pinned", async () => {
    const { log } = await chainOf(5);
    const lines = linesOf(log);
    const first = JSON.parse(lines[0]!) as AuditEntry;
    expect(Object.keys(first).sort()).toEqual(["action", "actor", "at", "details", "hash", "prev", "seq", "subject"]);
    expect(first.hash).toBe(entryHash(first));
    expect(JSON.parse(lines.at(-1)!).action).toBe("checkpoint");
    expect(verifyAuditLog(log, [auditKey().publicKey])).toMatchObject({ ok: true, entries: lines.length, first: 1 });
  });

  it("refuses a log signed by another key when the service's key is pinned", async () => {
    const { log } = await chainOf(2);
    const other = auditKeyFromSeed(Buffer.alloc(32, 7));
    expect(verifyAuditLog(log, [other.publicKey])).toMatchObject({ ok: false, line: 4 });
  });

  it("adds a signed checkpoint after every AUDIT_CHECKPOINT_EVERY entries", async () => {
    resetEnvForTests({ AUDIT_CHECKPOINT_EVERY: "4" });
    const siteId = randomUUID();
    for (let i = 0; i < 8; i++) await recordAudit({ siteId, actor: alice, action: "turn" });
    const rows = await listAuditRows({ siteId });
    expect(rows.filter((r) => r.action === "checkpoint").map((r) => r.seq)).toEqual([5, 10]);
    expect(rows).toHaveLength(10);
    expect(rows.find((r) => r.seq === 5)?.signature).toBeTruthy();
  });
});

describe("the audit chain under load (PostgreSQL)", () => {
  useStore("PostgreSQL");

  it("never forks when many appends arrive at once", async () => {
    const siteId = randomUUID();
    await Promise.all(
      Array.from({ length: 30 }, (_, i) => recordAudit({ siteId, actor: alice, action: "turn", details: { i } })),
    );
    const rows = await listAuditRows({ siteId });
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    for (let i = 1; i < rows.length; i++) expect(rows[i]!.prev).toBe(rows[i - 1]!.hash);
    expect(verifyAuditLog(await exportAuditLog({ siteId, actor: alice, retentionDays: null }))).toMatchObject({
      ok: true,
    });
  });

  it("cuts old entries only at a checkpoint; the export then starts there and still verifies", async () => {
    const siteId = randomUUID();
    for (let i = 0; i < 3; i++) await recordAudit({ siteId, actor: alice, action: "turn" });
    const checkpoint = await appendCheckpoint(siteId); // seq 4
    await recordAudit({ siteId, actor: alice, action: "turn" });
    advanceClockForTests(40 * 24 * 60 * 60 * 1000);
    await recordAudit({ siteId, actor: alice, action: "approve" });
    expect(await applyRetention(siteId, 30)).toBe(3);
    const log = await exportAuditLog({ siteId, actor: alice, retentionDays: 30 });
    const lines = linesOf(log);
    expect(JSON.parse(lines[0]!)).toMatchObject({ seq: checkpoint.seq, action: "checkpoint" });
    expect(verifyAuditLog(log)).toMatchObject({ ok: true, first: checkpoint.seq });
    // What remains cannot be shortened further at the front without notice.
    expect(verifyAuditLog(join(lines.slice(1)))).toMatchObject({ ok: false, line: 1 });
  });

  it("catches any single changed, dropped, moved or inserted line at that line", async () => {
    resetEnvForTests({ AUDIT_CHECKPOINT_EVERY: "5" });
    const { log } = await chainOf(12);
    const lines = linesOf(log);
    expect(verifyAuditLog(log)).toMatchObject({ ok: true });
    let random = 42;
    const next = () => {
      random = (random * 1103515245 + 12345) % 2 ** 31;
      return random;
    };
    const tamperings: Array<{ what: string; at: number; lines: string[] }> = [];
    for (let at = 0; at < lines.length; at++) {
      const entry = JSON.parse(lines[at]!) as AuditEntry & Record<string, unknown>;
      const fields = ["seq", "at", "actor", "action", "subject", "details", "prev"] as const;
      const field = fields[next() % fields.length]!;
      const changed = {
        ...entry,
        [field]:
          field === "seq"
            ? entry.seq + 1
            : field === "actor"
              ? { ...alice, name: "Mallory" }
              : typeof entry[field] === "string"
                ? `${entry[field]}x`
                : { forged: true },
      };
      tamperings.push({ what: `change ${field}`, at, lines: lines.with(at, JSON.stringify(changed)) });
      // Re-sealed by a forger: the hash fits its content, so the next line no longer follows it.
      const resealed = { ...changed, hash: entryHash(changed) };
      tamperings.push({
        what: `change ${field} and rehash`,
        // …unless the line itself fails: its own link (seq, prev) or, for a checkpoint, its signature.
        at: field === "prev" || field === "seq" || entry.action === "checkpoint" ? at : at + 1,
        lines: lines.with(at, JSON.stringify(resealed)),
      });
      tamperings.push({ what: "drop", at, lines: lines.toSpliced(at, 1) });
      if (at + 1 < lines.length)
        tamperings.push({ what: "swap with next", at, lines: lines.with(at, lines[at + 1]!).with(at + 1, lines[at]!) });
      tamperings.push({ what: "insert a copy", at, lines: lines.toSpliced(at, 0, lines[(at + 1) % lines.length]!) });
    }
    for (const tampering of tamperings) {
      const outcome = verifyAuditLog(join(tampering.lines));
      expect(outcome.ok, `${tampering.what} at line ${tampering.at + 1}`).toBe(false);
      if (!outcome.ok)
        expect(outcome.line, `${tampering.what} at line ${tampering.at + 1}: ${outcome.reason}`).toBe(tampering.at + 1);
    }
  });
});
