/**
 * Teams end to end through the real routes, PostgreSQL and a real WordPress (the model is scripted): the owner
 * invites an editor by mail, the editor accepts, asks for a change in the chat, the change waits for the owner and
 * the editor cannot approve it; with "changes need a second person" nobody approves their own request; every card
 * and the history name who asked and who approved; the exported log verifies (docs/teams.md).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { POST as accept } from "@/app/invitations/accept/route";
import { GET as exportRoute } from "@/app/sites/[id]/audit/export/route";
import { POST as approveRoute } from "@/app/sites/[id]/changes/[changeSetId]/approve/route";
import { GET as showRoute } from "@/app/sites/[id]/changes/[changeSetId]/route";
import { GET as listRoute } from "@/app/sites/[id]/changes/route";
import { PATCH as changeRole } from "@/app/sites/[id]/members/[memberId]/route";
import { GET as listMembers, POST as invite } from "@/app/sites/[id]/members/route";
import { PATCH as settings } from "@/app/sites/[id]/route";
import { resetBreakersForTests } from "@/lib/agent/breaker";
import { setAgentModelForTests } from "@/lib/agent/model";
import { DEFAULT_OPERATIONS } from "@/lib/agent/registry";
import { scriptedModel } from "@/lib/agent/testing/scripted-model";
import { verifyAuditLog } from "@/lib/audit/verify";
import { useTestDatabase } from "@/lib/db/testing";
import { setChatDepsForTests } from "@/lib/workflows/chat-turn";
import { newUser } from "@/test/accounts";
import { type AgentTestSite, pairAgentSite, startAgentSite } from "@/test/agent-site";
import { approvalIds, changeParts, chatAs } from "@/test/chat";
import { call } from "@/test/http";
import { useMailSink } from "@/test/mail";
import { linkIn } from "@/test/smtp-sink";

useTestDatabase();
const sink = useMailSink();
const origin = { origin: "http://localhost:3000" };

type Person = { id: string; cookie: string; email: string };
let wp: AgentTestSite;
let owner: Person;
let editor: Person;
let siteId: string;

beforeAll(async () => {
  wp = await startAgentSite();
  owner = await newUser("owner");
  editor = await newUser("editor");
  siteId = await pairAgentSite(wp, owner.id);
}, 180_000);

afterAll(async () => {
  setChatDepsForTests(undefined);
  setAgentModelForTests(undefined);
  await wp?.local.stop();
});

beforeEach(() => {
  resetBreakersForTests();
  setChatDepsForTests({
    limits: () => ({ maxSteps: 6, maxToolCalls: 6, maxTokens: 100_000, timeoutMs: 30_000 }),
    allowlist: () => [...DEFAULT_OPERATIONS, "publish_page"],
  });
});

async function draft(title: string) {
  const { data } = await wp.admin.post<{ id: number }>("/wp/v2/pages", {
    title,
    content: "<p>Hi</p>",
    status: "draft",
  });
  return data.id;
}
const statusOf = async (id: number) =>
  (await wp.admin.get<{ status: string }>(`/wp/v2/pages/${id}`, { context: "edit" })).data.status;

/** A chat turn asking to publish `id`: the scripted model calls publish_page; the change waits for approval. */
// A person's answer the route refuses (403) comes back with its status, not as a failed expectation.
const chat = chatAs(() => ({ siteId }), { refusals: true });

async function askToPublish(person: Person, id: number) {
  setAgentModelForTests(
    scriptedModel([{ toolCalls: [{ name: "publish_page", input: { id } }] }, { text: "Waiting." }]),
  );
  const turn = await chat({ message: `Publish page ${id}`, mode: "live" }, person.cookie);
  expect(turn.status, JSON.stringify(turn.json)).toBe(200);
  const [change] = changeParts(turn);
  expect(change, turn.text).toBeDefined();
  return {
    changeSetId: change!.changeSetId,
    conversationId: turn.conversationId,
    approvalId: approvalIds(turn)[0],
  };
}

const approve = (person: Person, changeSetId: string) =>
  call(approveRoute, { body: {}, cookie: person.cookie, headers: origin, params: { id: siteId, changeSetId } });

describe("a team on one site", () => {
  it("lets the owner invite an editor by a single-use link sent to that address", async () => {
    const invited = await call(invite, {
      body: { email: editor.email, role: "editor" },
      cookie: owner.cookie,
      headers: origin,
      params: { id: siteId },
    });
    expect(invited.status, invited.text).toBe(201);
    const mail = await sink().waitFor(editor.email, (m) => m.subject.includes("invited"));
    const { token } = linkIn(mail, "/invitations");

    const stranger = await newUser("stranger");
    const wrongPerson = await call(accept, { body: { token }, cookie: stranger.cookie, headers: origin });
    expect(wrongPerson.status).toBe(403);

    const joined = await call(accept, { body: { token }, cookie: editor.cookie, headers: origin });
    expect(joined.status, joined.text).toBe(200);
    expect(joined.json).toEqual({ siteId, role: "editor" });
    const again = await call(accept, { body: { token }, cookie: editor.cookie, headers: origin });
    expect(again.json.error.code).toBe("invalid_token");

    const team = await call(listMembers, { cookie: editor.cookie, params: { id: siteId } });
    expect(team.json).toMatchObject({ role: "editor", members: [{ userId: editor.id, role: "editor" }] });
  }, 60_000);

  it("keeps an editor's change waiting for the owner, names who asked and who approved", async () => {
    const id = await draft("Spring offers");
    const asked = await askToPublish(editor, id);
    expect(await statusOf(id)).toBe("draft");

    expect((await approve(editor, asked.changeSetId)).json.error.code).toBe("forbidden");
    const inChat = await chat(
      { conversationId: asked.conversationId, approvals: [{ id: asked.approvalId, approved: true }] },
      editor.cookie,
    );
    expect(inChat.status).toBe(403);
    expect(await statusOf(id)).toBe("draft");

    const approved = await approve(owner, asked.changeSetId);
    expect(approved.status, approved.text).toBe(200);
    expect(await statusOf(id)).toBe("publish");

    for (const reader of [owner, editor]) {
      const shown = await call(showRoute, {
        cookie: reader.cookie,
        params: { id: siteId, changeSetId: asked.changeSetId },
      });
      expect(shown.json.changeSet.requestedBy).toMatchObject({ userId: editor.id, door: "chat" });
      expect(shown.json.changeSet.items[0].actor).toMatchObject({ userId: editor.id });
      const activity = shown.json.changeSet.activity as Array<{ action: string; actor: { userId: string } }>;
      expect(activity.filter((a) => a.action === "approve").map((a) => a.actor.userId)).toEqual([owner.id]);
    }
    const history = await call(listRoute, { cookie: owner.cookie, params: { id: siteId } });
    expect(history.json.changeSets.find((s: { id: string }) => s.id === asked.changeSetId).requestedBy.userId).toBe(
      editor.id,
    );
  }, 120_000);

  it("refuses self-approval when the site asks for a second person, and lets another approver approve", async () => {
    const on = await call(settings, {
      method: "PATCH",
      body: { requireSecondPerson: true },
      cookie: owner.cookie,
      headers: origin,
      params: { id: siteId },
    });
    expect(on.json.site.requireSecondPerson).toBe(true);

    const id = await draft("Owner's own change");
    const asked = await askToPublish(owner, id);
    const self = await approve(owner, asked.changeSetId);
    expect(self.status).toBe(403);
    expect(self.json.error.code).toBe("second_person_required");
    const inChat = await chat(
      { conversationId: asked.conversationId, approvals: [{ id: asked.approvalId, approved: true }] },
      owner.cookie,
    );
    expect(inChat.json.error.code).toBe("second_person_required");
    expect(await statusOf(id)).toBe("draft");

    const team = await call(listMembers, { cookie: owner.cookie, params: { id: siteId } });
    const member = team.json.members.find((m: { userId: string }) => m.userId === editor.id);
    const promoted = await call(changeRole, {
      method: "PATCH",
      body: { role: "approver" },
      cookie: owner.cookie,
      headers: origin,
      params: { id: siteId, memberId: member.id },
    });
    expect(promoted.status).toBe(200);
    expect((await approve(editor, asked.changeSetId)).status).toBe(200);
    expect(await statusOf(id)).toBe("publish");
  }, 120_000);

  it("exports a log of every act that verifies offline and names the actors", async () => {
    const res = await call(exportRoute, { cookie: owner.cookie, params: { id: siteId } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/jsonl");
    expect(verifyAuditLog(res.text)).toMatchObject({ ok: true });
    const entries = res.text
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    const acts = entries.map(
      (e) => `${e.action}:${e.actor?.userId === editor.id ? "editor" : e.actor ? "owner" : "service"}`,
    );
    expect(acts).toEqual(
      expect.arrayContaining([
        "member_invite:owner",
        "member_join:editor",
        "turn:editor",
        "approve:owner",
        "setting:owner",
        "member_role:owner",
        "approve:editor",
        "export:owner",
      ]),
    );
  });
});
