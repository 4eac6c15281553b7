/**
 * The agent's queries against both stores the app can use (PGlite in memory and PostgreSQL): approvals are
 * decided and used atomically, messages are saved in order and updated in place, audit rows are finished.
 */
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { STORES, useStore } from "../testing";
import {
  consumeApproval,
  decideApprovalRequest,
  findApprovalRequest,
  findConversation,
  finishToolAudit,
  insertApprovalRequest,
  insertConversation,
  insertToolAudit,
  insertUser,
  listMessages,
  listToolAudit,
  saveMessages,
} from "../queries";

describe.each(STORES)("agent queries on %s", (kind) => {
  useStore(kind);
  const userId = randomUUID();
  const conversationId = randomUUID();
  const t0 = new Date("2026-01-01T00:00:00Z");
  const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);

  beforeAll(async () => {
    await insertUser({ id: userId, email: `${userId}@example.com`, name: null, passwordHash: "x", createdAt: t0 });
    await insertConversation({ id: conversationId, userId, siteId: "site-1", title: "t", now: t0 });
  });

  it("finds a conversation only for its user and site", async () => {
    expect(await findConversation({ id: conversationId, userId, siteId: "site-1" })).toMatchObject({
      id: conversationId,
    });
    expect(await findConversation({ id: conversationId, userId: "someone-else", siteId: "site-1" })).toBeUndefined();
    expect(await findConversation({ id: conversationId, userId, siteId: "site-2" })).toBeUndefined();
  });

  it("saves messages in order and updates a continued message in place", async () => {
    await saveMessages({
      conversationId,
      messages: [
        { id: "m1", role: "user", parts: [{ type: "text", text: "hi" }] },
        { id: "m2", role: "assistant", parts: [] },
      ],
      now: t0,
    });
    await saveMessages({
      conversationId,
      messages: [
        { id: "m1", role: "user", parts: [{ type: "text", text: "hi" }] },
        { id: "m2", role: "assistant", parts: [{ type: "text", text: "done" }], metadata: { stopReason: "finished" } },
        { id: "m3", role: "user", parts: [{ type: "text", text: "thanks" }] },
      ],
      now: at(1),
    });
    const saved = await listMessages({ conversationId });
    expect(saved.map((m) => [m.id, m.seq])).toEqual([
      ["m1", 0],
      ["m2", 1],
      ["m3", 2],
    ]);
    expect(saved[1]).toMatchObject({ parts: [{ type: "text", text: "done" }], metadata: { stopReason: "finished" } });
  });

  it("approves only before the expiry, and uses an approval once, for the same arguments only", async () => {
    const base = {
      conversationId,
      userId,
      siteId: "site-1",
      operation: "trash_page",
      input: { id: 1 },
      requestedAt: t0,
    };
    await insertApprovalRequest({ ...base, id: "a1", toolCallId: "c1", inputHash: "h1", expiresAt: at(600) });
    await insertApprovalRequest({ ...base, id: "a1-again", toolCallId: "c1", inputHash: "h1", expiresAt: at(900) }); // same call: ignored
    await insertApprovalRequest({ ...base, id: "a2", toolCallId: "c2", inputHash: "h2", expiresAt: at(600) });

    expect(await findApprovalRequest({ conversationId, userId, toolCallId: "c1", inputHash: "h1" })).toMatchObject({
      id: "a1",
      status: "pending",
    });
    expect(await decideApprovalRequest({ id: "a1", userId: "intruder", approved: true, now: at(10) })).toBeUndefined();
    expect(await decideApprovalRequest({ id: "a1", userId, approved: true, now: at(10) })).toBe("approved");
    expect(await decideApprovalRequest({ id: "a1", userId, approved: false, now: at(11) })).toBeUndefined(); // already decided
    expect(await decideApprovalRequest({ id: "a2", userId, approved: true, now: at(601) })).toBe("expired");

    const use = (over: Partial<Parameters<typeof consumeApproval>[0]>) =>
      consumeApproval({
        conversationId,
        userId,
        toolCallId: "c1",
        operation: "trash_page",
        inputHash: "h1",
        now: at(20),
        ...over,
      });
    expect(await use({ inputHash: "h2" })).toBe(false);
    expect(await use({ operation: "publish_page" })).toBe(false);
    expect(await use({ userId: "intruder" })).toBe(false);
    expect(await use({ now: at(700) })).toBe(false);
    const [first, second] = await Promise.all([use({}), use({})]);
    expect([first, second].filter(Boolean)).toHaveLength(1);
    expect(await use({})).toBe(false);
  });

  it("writes an audit row before the call and finishes it after", async () => {
    await insertToolAudit({
      id: "r1",
      conversationId,
      userId,
      siteId: "site-1",
      toolCallId: "c9",
      operation: "update_page",
      risk: "write",
      input: { id: 3 },
      status: "started",
      startedAt: t0,
    });
    expect((await listToolAudit({ conversationId }))[0]).toMatchObject({ status: "started", finishedAt: null });
    await finishToolAudit({
      id: "r1",
      status: "ok",
      resultSummary: "Updated the title of page 3.",
      finishedAt: at(1),
      durationMs: 1000,
    });
    expect((await listToolAudit({ siteId: "site-1" }))[0]).toMatchObject({
      status: "ok",
      resultSummary: "Updated the title of page 3.",
      durationMs: 1000,
      input: { id: 3 },
    });
  });
});
