/**
 * The agent end to end through `POST /chat`, with a scripted model (the only fake) against real PostgreSQL and a
 * real WordPress 6.1 running our plugin. Every request the agent makes to the site is counted.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { POST } from "@/app/chat/route";
import { advanceClockForTests } from "@/lib/clock";
import { findChangeSet, findSiteForUser, listChangeAudit, listMessages, listToolAudit } from "@/lib/db/queries";
import { humanEditPost } from "@/test/changes";
import { useTestDatabase } from "@/lib/db/testing";
import { getDb } from "@/lib/db";
import { toolApprovals } from "@/lib/db/schema";
import { VISIBILITY_ROUTE } from "@/lib/sites/items";
import { siteClientFor } from "@/lib/sites/sites";
import { call } from "@/test/http";
import { chatAs, latestChanges, outputs, type Turn } from "@/test/chat";
import { newUser } from "@/test/accounts";
import { eq } from "drizzle-orm";
import { APPROVAL_TTL_MS, spendApproval } from "./approvals";
import { breakerSnapshot, resetBreakersForTests } from "./breaker";
import { setChatDepsForTests } from "@/lib/workflows/chat-turn";
import { setAgentModelForTests } from "./model";
import { DEFAULT_OPERATIONS } from "./registry";
import {
  countingClient,
  insertSiteRow,
  pairAgentSite,
  startAgentSite,
  startFaultyLink,
  type AgentTestSite,
} from "@/test/agent-site";
import { HOSTILE_CONTENT, POLITE_CONTENT } from "./testing/injection-corpus";
import { failingModel, scriptedModel, toolResults, type Script } from "./testing/scripted-model";
import { UNTRUSTED_NOTICE } from "./untrusted";

useTestDatabase();

let wp: AgentTestSite;
let user: { cookie: string; id: string };
let siteId: string;
const counter: { requests: Array<{ method: string; route: string }> } = { requests: [] };
const limits = { maxSteps: 8, maxToolCalls: 12, maxTokens: 100_000, timeoutMs: 20_000 };

beforeAll(async () => {
  wp = await startAgentSite();
  user = await newUser("agent");
  siteId = await pairAgentSite(wp, user.id);
});

afterAll(async () => {
  setChatDepsForTests(undefined);
  setAgentModelForTests(undefined);
  await wp?.local.stop();
});

beforeEach(() => {
  counter.requests = [];
  resetBreakersForTests();
  setChatDepsForTests({ siteClient: (site) => countingClient(siteClientFor(site), counter), limits: () => limits });
});

afterEach(() => setAgentModelForTests(undefined));

// Refused turns (401, 403, 404…) come back with their status: several tests here are about those.
const chat = chatAs(() => ({ siteId, cookie: user.cookie }), { refusals: true });

function useModel(script: Script) {
  const model = scriptedModel(script);
  setAgentModelForTests(model);
  return model;
}

async function createPage(
  title: string,
  content = "<!-- wp:paragraph --><p>Hello</p><!-- /wp:paragraph -->",
  status = "draft",
) {
  const { data } = await wp.admin.post<{ id: number }>("/wp/v2/pages", { title, content, status });
  return data.id;
}

async function readPage(id: number) {
  return (await wp.admin.get<{ status: string; title: { raw: string } }>(`/wp/v2/pages/${id}`, { context: "edit" }))
    .data;
}

/** A request that could change the site: asking where visitors would see a plan (a POST) writes nothing. */
const writesToSite = (r: { method: string; route: string }) => r.method !== "GET" && r.route !== VISIBILITY_ROUTE;
const approvalRequests = (turn: Turn) =>
  turn.chunks.filter((c) => c.type === "tool-approval-request") as unknown as Array<{
    approvalId: string;
    toolCallId: string;
  }>;

describe("a chat turn", () => {
  it("finds a page, changes its title in several steps, streams it all and records it", async () => {
    const id = await createPage("About Zorbaville");
    useModel([
      { toolCalls: [{ name: "list_pages", input: { search: "About Zorbaville" } }] },
      (prompt) => {
        const listed = (toolResults(prompt).at(-1)!.output as any).site_data.data.items[0];
        return { toolCalls: [{ name: "update_page", input: { id: listed.id, title: "About our bakery" } }] };
      },
      { text: "I renamed the page to “About our bakery”." },
    ]);
    const turn = await chat({ message: "Rename the About Zorbaville page to About our bakery" });

    expect(turn.status).toBe(200);
    expect(turn.text).toContain("About our bakery");
    expect((await readPage(id)).title.raw).toBe("About our bakery");
    expect(outputs(turn).map((o) => o.summary)).toEqual([
      `Searched pages for "About Zorbaville": 1 found.`,
      `Updated the title of page ${id}.`,
    ]);
    expect(outputs(turn)[1]).toMatchObject({
      ok: true,
      before: { title: "About Zorbaville" },
      after: { title: "About our bakery" },
    });
    // The turn's own budget goes with it, to be shown beside what it used (and beside a bulk job's own).
    expect(turn.metadata).toMatchObject({ stopReason: "finished", steps: 3, toolCalls: 2, limits });
    expect(turn.metadata?.ms as number).toBeGreaterThan(0);
    expect(turn.metadata?.ms as number).toBeLessThan(limits.timeoutMs);

    const audit = await listToolAudit({ conversationId: turn.conversationId! });
    expect(audit.map((a) => [a.operation, a.status, a.userId, a.siteId])).toEqual([
      ["list_pages", "ok", user.id, siteId],
      ["update_page", "ok", user.id, siteId],
    ]);
    expect(audit[1]).toMatchObject({
      input: { type: "page", id, title: "About our bakery" },
      resultSummary: `Updated the title of page ${id}.`,
    });
    expect(audit[1]!.durationMs).toBeGreaterThanOrEqual(0);

    const saved = await listMessages({ conversationId: turn.conversationId! });
    expect(saved.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(JSON.stringify(saved[1]!.parts)).toContain("About our bakery");
  });

  it("records when the live site last answered, for the dashboard", async () => {
    const before = await findSiteForUser({ userId: user.id, siteId });
    useModel([{ toolCalls: [{ name: "list_pages", input: {} }] }, { text: "Here are your pages." }]);
    const turn = await chat({ message: "Which pages do I have?" });
    expect(turn.status).toBe(200);
    const after = await findSiteForUser({ userId: user.id, siteId });
    expect(after!.lastSeenAt!.getTime()).toBeGreaterThan(before!.lastSeenAt?.getTime() ?? 0);
  });

  it("shows the model every tool result wrapped as untrusted site data", async () => {
    const id = await createPage("Wrapped");
    const model = useModel([{ toolCalls: [{ name: "read_page", input: { id } }] }, { text: "Read it." }]);
    await chat({ message: "Read the Wrapped page" });
    const seen = toolResults(model.doStreamCalls[1]!.prompt)[0]!.output as Record<string, any>;
    expect(seen.untrusted_notice).toBe(UNTRUSTED_NOTICE);
    expect(seen.site_data).toMatchObject({
      ok: true,
      data: { id, title: "Wrapped", outline: [{ position: "1", block: "core/paragraph" }] },
    });
  });

  it("continues a conversation with its history and sends the first bytes before the model answers", async () => {
    useModel([{ text: "First answer." }]);
    const first = await chat({ message: "Remember the word tangerine" });
    const model = useModel([{ text: "Second answer.", delayMs: 400 }]);
    // What is timed is the turn's own work before the model answers, not the site's /info round trip.
    setChatDepsForTests({
      siteClient: (site) => countingClient(siteClientFor(site), counter),
      limits: () => limits,
      refreshSite: async (site) => site,
    });
    const started = performance.now();
    const res = await POST(
      new Request("http://localhost:3000/chat", {
        method: "POST",
        headers: { "content-type": "application/json", cookie: user.cookie, origin: "http://localhost:3000" },
        body: JSON.stringify({ siteId, conversationId: first.conversationId, message: "What was the word?" }),
      }),
    );
    const reader = res.body!.getReader();
    const firstBytes = new TextDecoder().decode((await reader.read()).value);
    const elapsed = performance.now() - started;
    expect(firstBytes).toContain('"type":"start"');
    expect(elapsed).toBeLessThan(350);
    while (!(await reader.read()).done);
    const prompt = JSON.stringify(model.doStreamCalls[0]!.prompt);
    expect(prompt).toContain("tangerine");
    expect(prompt).toContain("First answer.");
    expect((await listMessages({ conversationId: first.conversationId! })).map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
  });

  it("writes each audit row as the call completes, before the turn ends and its messages are saved", async () => {
    const id = await createPage("Before the crash");
    let midTurn: { audit: Array<[string, string]>; messages: number } | undefined;
    useModel([
      { toolCalls: [{ name: "update_page", input: { id, title: "Saved mid-turn" } }] },
      async (prompt) => {
        const conversationId = (await listToolAudit({ siteId })).find(
          (r) => (r.input as { id?: number })?.id === id,
        )!.conversationId;
        const audit = (await listToolAudit({ conversationId })).map((r): [string, string] => [r.operation, r.status]);
        midTurn = { audit, messages: (await listMessages({ conversationId })).length };
        void prompt;
        return { text: "Renamed." };
      },
    ]);
    await chat({ message: "Rename it" });
    expect(midTurn).toEqual({ audit: [["update_page", "ok"]], messages: 0 });
  });
});

describe("stopping", () => {
  it("ends the run when the client stops it, still saves the turn, and does not blame the model provider", async () => {
    const model = scriptedModel([{ text: "never finished", delayMs: 600 }]);
    setAgentModelForTests(model, "stoppable-provider");
    const controller = new AbortController();
    const response = await POST(
      new Request("http://localhost:3000/chat", {
        method: "POST",
        headers: { "content-type": "application/json", cookie: user.cookie, origin: "http://localhost:3000" },
        body: JSON.stringify({ siteId, message: "Start something long" }),
        signal: controller.signal,
      }),
    );
    const conversationId = response.headers.get("x-conversation-id")!;
    setTimeout(() => controller.abort(), 100);
    const reader = response.body!.getReader();
    while (!(await reader.read()).done);
    let saved = await listMessages({ conversationId });
    for (let i = 0; i < 50 && saved.length < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      saved = await listMessages({ conversationId });
    }
    expect(saved.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(saved[1]!.metadata).toMatchObject({ stopReason: "aborted" });
    expect(breakerSnapshot().models["stoppable-provider"]).toMatchObject({ state: "closed", recentFailures: 0 });
  });
});

describe("the allowlist", () => {
  it("refuses a tool outside the allowlist and the site sees no request at all", async () => {
    setChatDepsForTests({
      siteClient: (site) => countingClient(siteClientFor(site), counter),
      limits: () => limits,
      allowlist: () => DEFAULT_OPERATIONS.filter((name) => name !== "trash_page"),
    });
    const id = await createPage("Keep me");
    const model = useModel([
      { toolCalls: [{ name: "trash_page", input: { id } }] },
      { toolCalls: [{ name: "drop_database", input: {} }] },
      { text: "I cannot do that." },
    ]);
    const turn = await chat({ message: "Delete the Keep me page" });

    expect(counter.requests).toEqual([]);
    expect((await readPage(id)).status).toBe("draft");
    expect(turn.chunks.filter((c) => c.type === "tool-input-error").map((c) => c.errorText)).toEqual([
      "The assistant asked for a tool it is not allowed to use (trash_page); it was refused.",
      "The assistant asked for a tool it is not allowed to use (drop_database); it was refused.",
    ]);
    // The refusal goes back to the model as an error, and counts in the budget.
    expect(JSON.stringify(model.doStreamCalls[1]!.prompt)).toContain("unavailable tool 'trash_page'");
    expect(turn.metadata).toMatchObject({ toolCalls: 2 });
    const audit = await listToolAudit({ conversationId: turn.conversationId! });
    expect(audit.map((a) => [a.operation, a.status])).toEqual([
      ["trash_page", "invalid"],
      ["drop_database", "invalid"],
    ]);
  });

  it("feeds arguments that fail the schema back to the model without calling the site", async () => {
    const model = useModel([
      { toolCalls: [{ name: "update_page", input: { id: "twelve", title: "" } }] },
      { text: "Sorry." },
    ]);
    const turn = await chat({ message: "Rename page twelve" });
    expect(counter.requests).toEqual([]);
    expect(JSON.stringify(model.doStreamCalls[1]!.prompt)).toContain("Invalid input for tool update_page");
    expect((await listToolAudit({ conversationId: turn.conversationId! })).map((a) => a.status)).toEqual(["invalid"]);
  });

  it("offers the model only the allowlisted tools the token's scopes allow", async () => {
    setChatDepsForTests({
      siteClient: (site) => countingClient(siteClientFor(site), counter),
      limits: () => limits,
      allowlist: () => ["read_page", "publish_page"],
    });
    const model = useModel([{ text: "ok" }]);
    await chat({ message: "hi" });
    expect(model.doStreamCalls[0]!.tools!.map((t) => (t as { name: string }).name).sort()).toEqual([
      "publish_page",
      "read_page",
    ]);
  });
});

describe("destructive operations", () => {
  beforeEach(() => {
    setChatDepsForTests({
      siteClient: (site) => countingClient(siteClientFor(site), counter),
      limits: () => limits,
      allowlist: () => [...DEFAULT_OPERATIONS, "publish_page", "trash_page", "change_menu"],
    });
  });

  it("wait for the user's approval, then run exactly once", async () => {
    const id = await createPage("Launch page");
    useModel([{ toolCalls: [{ name: "publish_page", input: { id } }] }, { text: "Published." }]);
    const asked = await chat({ message: "Publish the launch page" });
    const [request] = approvalRequests(asked);
    expect(request).toBeDefined();
    // Planning reads the page (to show the diff); nothing is written before the click.
    expect(counter.requests.filter(writesToSite)).toEqual([]);
    expect(latestChanges(asked)[0]).toMatchObject({
      status: "pending",
      items: [{ title: "Launch page", before: { status: "draft" }, after: { status: "publish" }, status: "pending" }],
    });
    expect((await readPage(id)).status).toBe("draft");
    expect(asked.metadata).toMatchObject({ stopReason: "finished" });

    const approved = await chat({
      conversationId: asked.conversationId,
      approvals: [{ id: request!.approvalId, approved: true }],
    });
    expect(approved.status).toBe(200);
    expect(outputs(approved)[0]).toMatchObject({
      ok: true,
      before: { status: "draft" },
      after: { status: "publish" },
    });
    expect((await readPage(id)).status).toBe("publish");
    expect(approved.text).toContain("Published.");

    // The same approval cannot be used again.
    const again = await chat({
      conversationId: asked.conversationId,
      approvals: [{ id: request!.approvalId, approved: true }],
    });
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe("approval_not_pending");
  });

  it("leave the site untouched when the user denies, and tell the model why", async () => {
    const id = await createPage("Stay draft");
    const model = useModel([
      { toolCalls: [{ name: "publish_page", input: { id } }] },
      { text: "Understood, I left it as a draft." },
    ]);
    const asked = await chat({ message: "Publish Stay draft" });
    const denied = await chat({
      conversationId: asked.conversationId,
      approvals: [{ id: approvalRequests(asked)[0]!.approvalId, approved: false, reason: "Not yet" }],
    });
    expect(denied.chunks.some((c) => c.type === "tool-output-denied")).toBe(true);
    expect((await readPage(id)).status).toBe("draft");
    expect(JSON.stringify(model.doStreamCalls.at(-1)!.prompt)).toContain("Not yet");
  });

  it("bind an approval to its exact arguments: approving the trash of page 1 does not trash page 2", async () => {
    const one = await createPage("Page one");
    const two = await createPage("Page two");
    useModel([
      {
        toolCalls: [
          { name: "trash_page", input: { id: one }, id: "call_trash_one" },
          { name: "trash_page", input: { id: two }, id: "call_trash_two" },
        ],
      },
      { text: "Done." },
    ]);
    const asked = await chat({ message: "Trash page one" });
    const requests = approvalRequests(asked);
    expect(requests).toHaveLength(2);
    const forOne = requests.find((r) => r.toolCallId === "call_trash_one")!;
    const forTwo = requests.find((r) => r.toolCallId === "call_trash_two")!;
    await chat({
      conversationId: asked.conversationId,
      approvals: [
        { id: forOne.approvalId, approved: true },
        { id: forTwo.approvalId, approved: false },
      ],
    });
    expect((await readPage(one)).status).toBe("trash");
    expect((await readPage(two)).status).toBe("draft");

    // Even presented for page 2 with page 1's tool call, the used approval opens nothing.
    const scope = { conversationId: asked.conversationId!, userId: user.id };
    expect(
      await spendApproval(scope, {
        toolCallId: "call_trash_one",
        operation: "trash_page",
        input: { type: "page", id: two },
      }),
    ).toBe(false);
    expect(
      await spendApproval(scope, {
        toolCallId: "call_trash_one",
        operation: "trash_page",
        input: { type: "page", id: one },
      }),
    ).toBe(false);
  });

  it("refuse an approval that arrives after it expired", async () => {
    const id = await createPage("Too late");
    useModel([{ toolCalls: [{ name: "trash_page", input: { id } }] }, { text: "It was not trashed." }]);
    const asked = await chat({ message: "Trash Too late" });
    advanceClockForTests(APPROVAL_TTL_MS + 1000);
    const late = await chat({
      conversationId: asked.conversationId,
      approvals: [{ id: approvalRequests(asked)[0]!.approvalId, approved: true }],
    });
    expect(late.chunks.some((c) => c.type === "tool-output-denied")).toBe(true);
    expect((await readPage(id)).status).toBe("draft");
    const db = await getDb();
    const [row] = await db.select().from(toolApprovals).where(eq(toolApprovals.conversationId, asked.conversationId!));
    expect(row!.status).toBe("expired");
  });

  it("refuse an approved call whose stored arguments were changed afterwards", async () => {
    const one = await createPage("Approved target");
    const two = await createPage("Swapped target");
    useModel([{ toolCalls: [{ name: "trash_page", input: { id: one } }] }, { text: "ok" }]);
    const asked = await chat({ message: "Trash it" });
    // Someone edits the stored conversation to point the pending call at another page.
    const db = await getDb();
    const { messages } = await import("@/lib/db/schema");
    const stored = await listMessages({ conversationId: asked.conversationId! });
    const last = stored.at(-1)!;
    const parts = JSON.parse(JSON.stringify(last.parts).replaceAll(`"id":${one}`, `"id":${two}`));
    await db.update(messages).set({ parts }).where(eq(messages.id, last.id));
    await chat({
      conversationId: asked.conversationId,
      approvals: [{ id: approvalRequests(asked)[0]!.approvalId, approved: true }],
    });
    expect((await readPage(one)).status).toBe("draft");
    expect((await readPage(two)).status).toBe("draft");
  });

  it("close unanswered approval requests when the user moves on", async () => {
    const id = await createPage("Ignored request");
    useModel([{ toolCalls: [{ name: "trash_page", input: { id } }] }, { text: "ok" }]);
    const asked = await chat({ message: "Trash it" });
    useModel([{ text: "Sure, something else." }]);
    await chat({ conversationId: asked.conversationId, message: "Actually, never mind" });
    const late = await chat({
      conversationId: asked.conversationId,
      approvals: [{ id: approvalRequests(asked)[0]!.approvalId, approved: true }],
    });
    expect(late.status).toBe(409);
    expect((await readPage(id)).status).toBe("draft");
  });

  it("change a menu once approved", async () => {
    const { data: menu } = await wp.admin.post<{ id: number }>("/wp/v2/menus", { name: `Main ${Date.now()}` });
    const pageId = await createPage("Menu target", undefined, "publish");
    useModel([
      {
        toolCalls: [
          { name: "change_menu", input: { menuId: menu.id, changes: [{ action: "add", title: "Visit", pageId }] } },
        ],
      },
      { text: "Added." },
    ]);
    // Classic menus are offered on classic themes only: this conversation is about the site as a classic one. The
    // test WordPress has only a block theme, so the chat keeps the stored description instead of reading it again.
    setChatDepsForTests({
      siteClient: (site) => countingClient(siteClientFor(site), counter),
      limits: () => limits,
      refreshSite: async (site) => site,
    });
    const theme = wp.info.theme as Record<string, unknown>;
    const classicSiteId = await pairAgentSite(wp, user.id, {
      info: { ...wp.info, theme: { ...theme, isBlockTheme: false } },
    });
    const asked = await chat({ siteId: classicSiteId, message: "Add the page to the menu" });
    const done = await chat({
      siteId: classicSiteId,
      conversationId: asked.conversationId,
      approvals: [{ id: approvalRequests(asked)[0]!.approvalId, approved: true }],
    });
    expect(outputs(done)[0]).toMatchObject({
      ok: true,
      before: { items: [] },
      after: { items: [{ title: "Visit" }] },
    });
  });
});

describe("the owner's click rule", () => {
  it("writes a draft at once but holds a published page's edit, with its diff, until the owner approves it", async () => {
    const draft = await createPage("Draft notes");
    const live = await createPage("Opening hours", undefined, "publish");
    useModel([
      {
        toolCalls: [
          { name: "update_page", input: { id: draft, title: "Draft notes v2" }, id: "call_draft" },
          { name: "update_page", input: { id: live, title: "Opening hours (summer)" }, id: "call_live" },
        ],
      },
      { text: "Renamed both." },
    ]);
    const asked = await chat({ message: "Rename both pages" });
    expect(approvalRequests(asked).map((r) => r.toolCallId)).toEqual(["call_live"]);
    expect((await readPage(draft)).title.raw).toBe("Draft notes v2");
    expect((await readPage(live)).title.raw).toBe("Opening hours");
    const parts = Object.fromEntries(latestChanges(asked).map((p) => [p.toolCallId, p]));
    expect(parts.call_draft).toMatchObject({ status: "applied", items: [{ visible: false }] });
    expect(parts.call_live).toMatchObject({
      status: "pending",
      items: [
        { title: "Opening hours", before: { title: "Opening hours" }, after: { title: "Opening hours (summer)" } },
      ],
    });
    expect(asked.metadata?.changeSetId).toBe(parts.call_live!.changeSetId);

    const approved = await chat({
      conversationId: asked.conversationId,
      approvals: [{ id: approvalRequests(asked)[0]!.approvalId, approved: true }],
    });
    expect(outputs(approved)[0]).toMatchObject({ ok: true, after: { title: "Opening hours (summer)" } });
    // No false warning from our own result (it named the operation, which the phrase scanner matched).
    expect(outputs(approved)[0]!.flagged).toBeUndefined();
    expect((await readPage(live)).title.raw).toBe("Opening hours (summer)");
    expect(approved.metadata?.changeSetId).toBe(parts.call_live!.changeSetId);
    const set = await findChangeSet({ id: parts.call_live!.changeSetId, userId: user.id, siteId });
    expect(set).toMatchObject({ status: "applied" });
    expect(set!.items.map((i) => [i.title, i.status]).sort()).toEqual([
      ["Draft notes", "applied"],
      ["Opening hours", "applied"],
    ]);
    // The look at the live site follows the approved write on its own (lib/agent/verification.test.ts).
    const audit = (await listChangeAudit({ changeSetId: set!.id })).filter((a) => a.action !== "verify");
    expect(audit.map((a) => [a.action, a.outcome])).toEqual([
      ["write", "ok"],
      ["approve", "ok"],
      ["write", "ok"],
    ]);
  });

  it("writes two edits of one draft made in the same step, the second planned again over the first", async () => {
    const draft = await createPage("Two blocks", "<!-- wp:paragraph --><p>One</p><!-- /wp:paragraph -->");
    useModel([
      {
        toolCalls: [
          {
            name: "insert_block",
            input: { id: draft, position: "end", markup: "<!-- wp:paragraph --><p>Two</p><!-- /wp:paragraph -->" },
          },
          {
            name: "insert_block",
            input: { id: draft, position: "end", markup: "<!-- wp:paragraph --><p>Three</p><!-- /wp:paragraph -->" },
          },
        ],
      },
      { text: "Added two paragraphs." },
    ]);
    const turn = await chat({ message: "Add two paragraphs" });
    expect(outputs(turn).map((o) => o.ok)).toEqual([true, true]);
    const content = (await wp.admin.get<{ content: { raw: string } }>(`/wp/v2/pages/${draft}`, { context: "edit" }))
      .data.content.raw;
    expect(content).toContain("<p>One</p>");
    expect(content).toContain("<p>Two</p>");
    expect(content).toContain("<p>Three</p>");
  });

  it("respects a denial: the page stays as it was, the plan is closed and the model is told", async () => {
    const live = await createPage("Team", undefined, "publish");
    const model = useModel([
      { toolCalls: [{ name: "update_page", input: { id: live, title: "Our team" } }] },
      { text: "Fine, I left it." },
    ]);
    const asked = await chat({ message: "Rename Team" });
    const denied = await chat({
      conversationId: asked.conversationId,
      approvals: [{ id: approvalRequests(asked)[0]!.approvalId, approved: false, reason: "Keep the old name" }],
    });
    expect(denied.chunks.some((c) => c.type === "tool-output-denied")).toBe(true);
    expect((await readPage(live)).title.raw).toBe("Team");
    expect(JSON.stringify(model.doStreamCalls.at(-1)!.prompt)).toContain("Keep the old name");
    const set = await findChangeSet({ id: asked.metadata!.changeSetId as string, userId: user.id, siteId });
    expect(set).toMatchObject({ status: "discarded", items: [{ status: "denied" }] });
    expect((await listChangeAudit({ changeSetId: set!.id })).map((a) => [a.action, a.outcome, a.detail])).toEqual([
      ["deny", "denied", "Keep the old name"],
    ]);
  });

  it("approves every pending change of the turn in one request", async () => {
    const one = await createPage("Menu A", undefined, "publish");
    const two = await createPage("Menu B", undefined, "publish");
    useModel([
      {
        toolCalls: [
          { name: "update_page", input: { id: one, title: "Lunch" } },
          { name: "update_page", input: { id: two, title: "Dinner" } },
          { name: "set_site_identity", input: { tagline: "Open late" } },
        ],
      },
      { text: "Done." },
    ]);
    const asked = await chat({ message: "Rename the menus and set the tagline" });
    expect(approvalRequests(asked)).toHaveLength(3);
    await chat({
      conversationId: asked.conversationId,
      approvals: approvalRequests(asked).map((r) => ({ id: r.approvalId, approved: true })),
    });
    expect((await readPage(one)).title.raw).toBe("Lunch");
    expect((await readPage(two)).title.raw).toBe("Dinner");
    expect((await wp.admin.get<{ description: string }>("/wp/v2/settings")).data.description).toBe("Open late");
  });

  it("closes an approved plan the site could not be reached for, and says so in the audit", async () => {
    const link = await startFaultyLink(wp.local.port);
    const flakySite = await pairAgentSite(wp, user.id, { url: link.url });
    try {
      const live = await createPage("Gallery", undefined, "publish");
      useModel([{ toolCalls: [{ name: "update_page", input: { id: live, title: "Photo gallery" } }] }, { text: "ok" }]);
      const asked = await chat({ siteId: flakySite, message: "Rename Gallery" });
      link.down();
      const approved = await chat({
        siteId: flakySite,
        conversationId: asked.conversationId,
        approvals: [{ id: approvalRequests(asked)[0]!.approvalId, approved: true }],
      });
      expect(outputs(approved)[0]).toMatchObject({ ok: false, code: "site_unreachable" });
      const set = await findChangeSet({
        id: asked.metadata!.changeSetId as string,
        userId: user.id,
        siteId: flakySite,
      });
      expect(set).toMatchObject({ status: "discarded", items: [{ status: "failed" }] });
      expect((await listChangeAudit({ changeSetId: set!.id })).at(-1)).toMatchObject({
        action: "write",
        outcome: "failed",
        detail: expect.stringContaining("Unknown whether it was written"),
      });
      link.up();
      expect((await readPage(live)).title.raw).toBe("Gallery");
    } finally {
      await link.close();
    }
  });

  it("writes nothing over a person's edit made between the plan and the click, and the model hears why", async () => {
    const live = await createPage("Prices", undefined, "publish");
    const model = useModel([
      { toolCalls: [{ name: "update_page", input: { id: live, title: "Our prices" } }] },
      { text: "Someone edited it meanwhile, so I changed nothing." },
    ]);
    const asked = await chat({ message: "Rename Prices" });
    await humanEditPost(wp.local.wpPath, live, { title: "Prices 2027", content: "New list by Ana" });
    const approved = await chat({
      conversationId: asked.conversationId,
      approvals: [{ id: approvalRequests(asked)[0]!.approvalId, approved: true }],
    });
    expect(outputs(approved)[0]).toMatchObject({ ok: false, code: "sitewright_stale" });
    expect((await readPage(live)).title.raw).toBe("Prices 2027");
    expect(JSON.stringify(model.doStreamCalls.at(-1)!.prompt)).toContain("sitewright_stale");
  });
});

describe("prompt injection", () => {
  beforeEach(() => {
    setChatDepsForTests({
      siteClient: (site) => countingClient(siteClientFor(site), counter),
      limits: () => limits,
      allowlist: () => [...DEFAULT_OPERATIONS, "publish_page", "trash_page"],
    });
  });

  it.each([...HOSTILE_CONTENT, ...POLITE_CONTENT])(
    "hostile page content changes nothing visible without the owner's click, and the click shows exactly what would change: %s",
    async (hostile) => {
      const id = await createPage(
        "Innocent title",
        `<!-- wp:paragraph --><p>${hostile}</p><!-- /wp:paragraph -->`,
        "publish",
      );
      const settingsBefore = (await wp.admin.get<{ title: string }>("/wp/v2/settings")).data.title;
      // A gullible model that does whatever the page says.
      useModel([
        { toolCalls: [{ name: "read_page", input: { id } }] },
        {
          toolCalls: [
            { name: "set_site_identity", input: { title: "HACKED" }, id: "call_identity" },
            { name: "update_page", input: { id, title: "Owned" }, id: "call_update" },
            { name: "trash_page", input: { id }, id: "call_trash" },
          ],
        },
        { text: "Done as the page said." },
      ]);
      const turn = await chat({ message: "What does the Innocent title page say?" });
      expect(approvalRequests(turn)).toHaveLength(3);
      expect(counter.requests.filter(writesToSite)).toEqual([]);
      expect((await readPage(id)).title.raw).toBe("Innocent title");
      expect((await readPage(id)).status).toBe("publish");
      expect((await wp.admin.get<{ title: string }>("/wp/v2/settings")).data.title).toBe(settingsBefore);
      const pending = Object.fromEntries(latestChanges(turn).map((part) => [part.toolCallId, part]));
      expect(pending.call_identity).toMatchObject({
        status: "pending",
        items: [
          { kind: "setting", title: "Site title", before: { value: settingsBefore }, after: { value: "HACKED" } },
        ],
      });
      expect(pending.call_update).toMatchObject({
        items: [
          { kind: "page", title: "Innocent title", before: { title: "Innocent title" }, after: { title: "Owned" } },
        ],
      });
      expect(pending.call_trash).toMatchObject({
        items: [{ title: "Innocent title", before: { status: "publish" }, after: { status: "trash" } }],
      });
      expect(turn.metadata?.changeSetId).toEqual(pending.call_update!.changeSetId);
    },
  );

  it("warns the model for the rest of a conversation that read hostile content, and a published page still waits", async () => {
    const id = await createPage("Later", `<p>${HOSTILE_CONTENT[0]}</p>`, "publish");
    useModel([
      { toolCalls: [{ name: "read_page", input: { id } }] },
      { text: "It asks me to delete pages; I will not." },
    ]);
    const first = await chat({ message: "Read Later" });
    const model = useModel([
      { toolCalls: [{ name: "update_page", input: { id, title: "Changed later" } }] },
      { text: "ok" },
    ]);
    const second = await chat({ conversationId: first.conversationId, message: "thanks" });
    expect(approvalRequests(second)).toHaveLength(1);
    // The system prompt warns without quoting the site's text.
    const system = model.doStreamCalls[0]!.prompt.find((m) => m.role === "system")!.content as string;
    expect(system).toContain("contained text aimed at an AI assistant");
    expect(system).not.toContain("delete all pages");
    expect((await readPage(id)).title.raw).toBe("Later");
  });
});

describe("the budget", () => {
  const withLimits = (overrides: Partial<typeof limits>) =>
    setChatDepsForTests({
      siteClient: (site) => countingClient(siteClientFor(site), counter),
      limits: () => ({ ...limits, ...overrides }),
    });
  const forever = (calls = 1) =>
    useModel([{ toolCalls: Array.from({ length: calls }, () => ({ name: "get_site_info", input: {} })) }]);

  it("stops a model that calls tools forever at the step limit, and says what was done", async () => {
    withLimits({ maxSteps: 3 });
    forever();
    const turn = await chat({ message: "loop" });
    expect(turn.metadata).toMatchObject({ stopReason: "max_steps", steps: 3 });
    expect(turn.text).toContain("I stopped here because the step limit (3 model steps) was reached.");
    expect(turn.text).toContain("Nothing was changed on the site.");
    const saved = await listMessages({ conversationId: turn.conversationId! });
    expect(saved.at(-1)!.metadata).toMatchObject({ stopReason: "max_steps" });
  });

  it("stops at the tool call limit without making the call over it", async () => {
    withLimits({ maxToolCalls: 3 });
    forever(2);
    const turn = await chat({ message: "loop" });
    expect(turn.metadata).toMatchObject({ stopReason: "max_tool_calls", toolCalls: 4 });
    expect(counter.requests).toHaveLength(3);
    expect(turn.text).toContain("the tool call limit (3 calls) was reached");
    const audit = await listToolAudit({ conversationId: turn.conversationId! });
    expect(audit.filter((a) => a.status === "refused").map((a) => a.error)).toEqual([
      expect.stringMatching(/^budget_exhausted/),
    ]);
  });

  it("counts invalid tool calls against the tool call limit", async () => {
    withLimits({ maxToolCalls: 2 });
    useModel([{ toolCalls: [{ name: "no_such_tool", input: {} }] }]);
    const turn = await chat({ message: "loop" });
    expect(turn.metadata).toMatchObject({ stopReason: "max_tool_calls", toolCalls: 3 });
    expect(counter.requests).toEqual([]);
  });

  it("stops at the token limit", async () => {
    withLimits({ maxTokens: 25 });
    forever();
    const turn = await chat({ message: "loop" });
    expect(turn.metadata).toMatchObject({ stopReason: "max_tokens", steps: 3, tokens: 30 });
  });

  it("stops at the time limit with a closing message instead of a hung stream", async () => {
    withLimits({ timeoutMs: 300 });
    useModel([{ toolCalls: [{ name: "get_site_info", input: {} }], delayMs: 120 }]);
    const started = performance.now();
    const turn = await chat({ message: "loop" });
    expect(performance.now() - started).toBeLessThan(3000);
    expect(turn.metadata).toMatchObject({ stopReason: "timeout" });
    expect(turn.text).toContain("the time limit (0.3 s) was reached");
    expect(turn.chunks.at(-1)!.type).toBe("finish");
  });

  it("lists what was changed when a run is cut short", async () => {
    withLimits({ maxSteps: 2 });
    const id = await createPage("Budget edit");
    useModel([
      { toolCalls: [{ name: "update_page", input: { id, title: "Edited before the limit" } }] },
      { toolCalls: [{ name: "get_site_info", input: {} }] },
    ]);
    const turn = await chat({ message: "edit then loop" });
    expect(turn.text).toContain(`Done on the site:\n- Updated the title of page ${id}.`);
  });
});

describe("circuit breakers", () => {
  it("open for a failing site after five failures, fail fast, and recover after the cool-down", async () => {
    const link = await startFaultyLink(wp.local.port);
    const flakySite = await pairAgentSite(wp, user.id, { url: link.url });
    try {
      link.down();
      useModel([{ toolCalls: [{ name: "get_site_info", input: {} }] }]);
      const turn = await chat({ siteId: flakySite, message: "info please" });
      const answers = outputs(turn);
      expect(answers.slice(0, 5).map((o) => o.code)).toEqual(Array(5).fill("site_unreachable"));
      expect(answers.slice(5).every((o) => o.code === "site_paused")).toBe(true);
      const attempts = link.connections();
      expect(breakerSnapshot().sites[flakySite]).toMatchObject({ state: "open", consecutiveFailures: 5 });

      link.up();
      useModel([{ toolCalls: [{ name: "get_site_info", input: {} }] }, { text: "ok" }]);
      const stillOpen = await chat({ siteId: flakySite, message: "again" });
      expect(outputs(stillOpen)[0]!.code).toBe("site_paused");
      expect(link.connections()).toBe(attempts);

      advanceClockForTests(30_001);
      expect(breakerSnapshot().sites[flakySite]!.state).toBe("half_open");
      useModel([{ toolCalls: [{ name: "get_site_info", input: {} }] }, { text: "ok" }]);
      const recovered = await chat({ siteId: flakySite, message: "and now?" });
      expect(outputs(recovered)[0]).toMatchObject({ ok: true });
      expect(breakerSnapshot().sites[flakySite]!.state).toBe("closed");
    } finally {
      await link.close();
    }
  });

  it("open for a failing model provider and stop calling it until the cool-down passes", async () => {
    const broken = failingModel(new Error("connection refused"));
    setAgentModelForTests(broken, "flaky-provider");
    for (let i = 0; i < 5; i++) {
      const turn = await chat({ message: `try ${i}` });
      expect(turn.metadata).toMatchObject({ stopReason: "error" });
    }
    const paused = await chat({ message: "try 6" });
    expect(broken.doStreamCalls).toHaveLength(5);
    expect(paused.chunks.find((c) => c.type === "error")!.errorText).toMatch(/paused calls to it\. Try again in 30 s/);
    expect(paused.text).toContain("I could not finish this request.");
    expect(breakerSnapshot().models["flaky-provider"]).toMatchObject({ state: "open" });

    advanceClockForTests(30_001);
    setAgentModelForTests(scriptedModel([{ text: "Back." }]), "flaky-provider");
    const back = await chat({ message: "hello?" });
    expect(back.text).toBe("Back.");
    expect(breakerSnapshot().models["flaky-provider"]!.state).toBe("closed");
  });
});

describe("POST /chat refuses before any model call", () => {
  it("answers 401 without a session", async () => {
    const model = useModel([{ text: "never" }]);
    const res = await call(POST, {
      body: { siteId, message: "hi" },
      path: "/chat",
      headers: { origin: "http://localhost:3000" },
    });
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe("unauthenticated");
    expect(model.doStreamCalls).toHaveLength(0);
  });

  it("answers 400 for an empty message and 413 for one over 8 KiB of text", async () => {
    const model = useModel([{ text: "never" }]);
    expect((await chat({ message: "   " })).status).toBe(400);
    const big = await chat({ message: "é".repeat(4097) }); // 8194 bytes
    expect(big.status).toBe(413);
    expect(big.json.error.code).toBe("payload_too_large");
    expect((await chat({ message: "é".repeat(4096) })).status).toBe(200);
    expect(model.doStreamCalls).toHaveLength(1);
  });

  it("answers 503 agent_unavailable when no model is configured", async () => {
    setAgentModelForTests(null);
    const res = await chat({ message: "hi" });
    expect(res.status).toBe(503);
    expect(res.json.error.code).toBe("agent_unavailable");
    // The size check comes first, the site check after.
    expect((await chat({ message: "x".repeat(9000) })).status).toBe(413);
    expect((await chat({ siteId: "no-such-site", message: "hi" })).status).toBe(503);
  });

  it("answers 404 for another user's site or an unknown conversation, the same way", async () => {
    const model = useModel([{ text: "never" }]);
    const other = await newUser("other");
    const theirs = await chat({ message: "hi" }, other.cookie);
    const missing = await chat({ siteId: "no-such-site", message: "hi" });
    expect([theirs.status, missing.status]).toEqual([404, 404]);
    expect(theirs.json).toEqual(missing.json);
    expect((await chat({ conversationId: "no-such-conversation", message: "hi" })).status).toBe(404);
    expect(model.doStreamCalls).toHaveLength(0);
  });

  it("answers 404 for a conversation that belongs to another user", async () => {
    useModel([{ text: "mine" }]);
    const mine = await chat({ message: "hi" });
    const other = await newUser("intruder");
    const theirSite = await pairAgentSite(wp, other.id);
    const res = await chat({ siteId: theirSite, conversationId: mine.conversationId, message: "hi" }, other.cookie);
    expect(res.status).toBe(404);
  });

  it("answers 409 site_not_active for a site that is not connected yet", async () => {
    const model = useModel([{ text: "never" }]);
    const pending = await insertSiteRow({
      userId: user.id,
      url: wp.local.url,
      token: wp.token,
      secret: wp.secret,
      info: wp.info,
      status: "redeemed",
    });
    const res = await chat({ siteId: pending, message: "hi" });
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe("site_not_active");
    expect(model.doStreamCalls).toHaveLength(0);
  });
});
