/**
 * Try it in a sandbox first (issue 13), against the real WordPress with our plugin as the live site, real Podman
 * sandboxes and PostgreSQL; only the language model is scripted. A sandbox-mode chat turn leaves the live site
 * untouched and its change shows in the preview; apply makes it live in one batch; undo puts the live site back;
 * a person's edit on the live site in between makes apply refuse, naming the page; discard throws it away.
 */
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { systemPrompt } from "@/lib/agent/prompt";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { POST as chatRoute } from "@/app/chat/route";
import { GET as previewRoute } from "@/app/preview/[sandboxId]/[[...path]]/route";
import { POST as applyRoute } from "@/app/sites/[id]/changes/[changeSetId]/apply/route";
import { POST as discardRoute } from "@/app/sites/[id]/changes/[changeSetId]/discard/route";
import { GET as showRoute } from "@/app/sites/[id]/changes/[changeSetId]/route";
import { POST as undoRoute } from "@/app/sites/[id]/changes/[changeSetId]/undo/route";
import { setChatDepsForTests } from "@/lib/workflows/chat-turn";
import { setAgentModelForTests } from "@/lib/agent/model";
import { operationsByName } from "@/lib/agent/operations";
import { type Chunk, pairAgentSite, parseUiStream, startAgentSite, type AgentTestSite } from "@/test/agent-site";
import { scriptedModel, toolResults } from "@/lib/agent/testing/scripted-model";
import { ITEMS_ROUTE, readItem, writeItems } from "@/lib/sites/items";
import { humanEditPost, writeThroughAgent } from "@/test/changes";
import {
  claimRehearsalsForApply,
  ClaimReleasedError,
  findConversationSandbox,
  findChangeSet,
  findRunningRun,
  findSandboxManifest,
  findSiteForUser,
  getChangeSetItems,
  insertConversation,
  listChangeAudit,
  upsertSandboxManifest,
} from "@/lib/db/queries";
import { useTestDatabase } from "@/lib/db/testing";
import { siteClientFor } from "@/lib/sites/sites";
import type { SiteClient } from "@/lib/sites/types";
import { newUser } from "@/test/accounts";
import { postWriteCounter } from "@/test/wordpress";
import { applyRehearsal } from "@/lib/workflows/apply-rehearsal";
import { resumeInterruptedRuns } from "@/lib/workflows/resume-runs";
import { startRun } from "@/lib/changes/journal";
import { advanceClockForTests, now, resetClockForTests } from "@/lib/clock";
import { env } from "@/lib/env";
import { call } from "@/test/http";
import { setSandboxManagerForTests } from "./index";
import { createTestSandboxes, type TestSandboxes } from "./testing";

useTestDatabase();

const APP = "http://localhost:3000";
const origin = { origin: APP };
let wp: AgentTestSite;
let t: TestSandboxes;
let owner: { cookie: string; id: string };
let siteId: string;
let live: SiteClient;

beforeAll(async () => {
  wp = await startAgentSite();
  owner = await newUser("rehearsal");
  siteId = await pairAgentSite(wp, owner.id);
  live = siteClientFor((await findSiteForUser({ userId: owner.id, siteId }))!);
  t = createTestSandboxes(
    { poolSize: 1, appUrl: APP },
    { siteSource: async () => ({ client: live, site: { id: siteId, url: wp.local.url } }) },
  );
  await t.manager.image();
  await t.manager.fillPool();
  await setSandboxManagerForTests(t.manager);
  setChatDepsForTests({ sandboxesEnabled: () => true, limits: () => limits });
}, 180_000);

afterAll(async () => {
  setChatDepsForTests(undefined);
  setAgentModelForTests(undefined);
  await setSandboxManagerForTests(undefined);
  await t?.cleanup();
  await wp?.local.stop();
});

afterEach(() => setAgentModelForTests(undefined));

const limits = { maxSteps: 8, maxToolCalls: 12, maxTokens: 100_000, timeoutMs: 60_000 };
const para = (text: string) => `<!-- wp:paragraph --><p>${text}</p><!-- /wp:paragraph -->`;

async function livePage(title: string, content: string) {
  const { data } = await wp.admin.post<{ id: number }>("/wp/v2/pages", { title, content, status: "publish" });
  return data.id;
}
const liveContent = async (id: number) =>
  (await wp.admin.get<{ content: { raw: string } }>(`/wp/v2/pages/${id}`, { context: "edit" })).data.content.raw;

/** Fetches a preview page as the owner's browser would (session cookie), through the preview route. */
async function preview(sandboxId: string, path: string, cookie = owner.cookie) {
  return call(previewRoute, { path: `/preview/${sandboxId}${path}`, cookie, params: { sandboxId } });
}

async function chatTurn(body: Record<string, unknown>) {
  const res = await call(chatRoute, {
    body: { siteId, ...body },
    cookie: owner.cookie,
    path: "/chat",
    headers: origin,
  });
  expect(res.status).toBe(200);
  const chunks: Chunk[] = parseUiStream(res.text);
  const finish = chunks.find((c) => c.type === "finish") as { messageMetadata?: Record<string, any> } | undefined;
  return { chunks, metadata: finish?.messageMetadata ?? {} };
}

/** A turn's scope in the conversation's rehearsal sandbox (what writeThroughAgent records the writes under). */
const sandboxScope = (conversationId: string, sandboxId: string) => ({
  userId: owner.id,
  siteId,
  conversationId,
  turnId: randomUUID(),
  target: "sandbox" as const,
  sandboxId,
});

/** Earlier tests leave rehearsals waiting; one user holds at most SANDBOX_MAX_PER_USER sandboxes. */
async function closeOwnersSandboxes() {
  for (const open of await t.manager.listSandboxes({ userId: owner.id })) {
    await t.manager.deleteSandbox({ userId: owner.id, id: open.id });
  }
}

/** A conversation whose rehearsal changed one live page's content in its sandbox (one update_page). */
async function rehearsedEdit(id: number, title: string, content: string, newTitle?: string) {
  const conversationId = randomUUID();
  await insertConversation({ id: conversationId, userId: owner.id, siteId, title, now: new Date() });
  const rehearsal = await t.manager.rehearsal({ userId: owner.id, siteId, conversationId, live });
  const sandboxPage = rehearsal.manifest.items.find((item) => item.liveRef === `post:${id}`)!;
  const written = await writeThroughAgent(
    { scope: sandboxScope(conversationId, rehearsal.sandbox.id), client: rehearsal.client },
    operationsByName.get("update_page")!,
    { id: Number(sandboxPage.sandboxId), content, ...(newTitle ? { title: newTitle } : {}) },
  );
  return { conversationId, rehearsal, changeSetId: (written.data as { changeSetId: string }).changeSetId };
}

const changeSetRoute = (route: typeof applyRoute, changeSetId: string, body: Record<string, unknown> = {}) =>
  call(route, { body, cookie: owner.cookie, headers: origin, params: { id: siteId, changeSetId } });

describe("sandbox mode", () => {
  it("rehearses a change in a sandbox copy, shows it in the preview, applies it, and undo puts live back", async () => {
    const id = await livePage("Opening hours", para("Open 8–18"));
    setAgentModelForTests(
      scriptedModel([
        { toolCalls: [{ name: "list_pages", input: { search: "Opening hours" } }] },
        (prompt) => {
          const listed = (toolResults(prompt).at(-1)!.output as any).site_data.data.items[0];
          return {
            toolCalls: [{ name: "update_page", input: { id: listed.id, content: para("Open 7–19, also on Sundays") } }],
          };
        },
        { text: "Done in the sandbox." },
      ]),
    );
    const turn = await chatTurn({ message: "Change the opening hours to 7–19 and say we open on Sundays" });
    expect(turn.metadata.mode).toBe("sandbox");
    const sandboxId = turn.metadata.sandboxId as string;
    const changeSetId = turn.metadata.changeSetId as string;
    expect(sandboxId).toMatch(/^[0-9a-f-]{36}$/);
    expect(changeSetId).toBeDefined();
    // No click was asked for: the write went to the sandbox; the set waits for Apply.
    expect(turn.chunks.some((c) => c.type === "tool-approval-request")).toBe(false);

    // The live site is untouched.
    expect(await liveContent(id)).toBe(para("Open 8–18"));
    const shown = await changeSetRoute(showRoute, changeSetId);
    expect(shown.json.changeSet).toMatchObject({ target: "sandbox", sandboxId, status: "pending" });
    expect(shown.json.changeSet.items[0]).toMatchObject({ kind: "page", title: "Opening hours" });

    // The preview shows the change, with links that stay inside it and no container address.
    const page = await preview(sandboxId, "/opening-hours/");
    expect(page.status).toBe(200);
    expect(page.text).toContain("Open 7–19, also on Sundays");
    expect(page.text).toContain(`${APP}/preview/${sandboxId}/`);
    expect(page.text).not.toMatch(/127\.0\.0\.1:\d+/);
    expect(page.text).not.toContain(wp.local.url);
    expect(JSON.stringify([...page.headers])).not.toMatch(/127\.0\.0\.1/);
    expect(page.headers.get("content-security-policy")).toMatch(/^sandbox /);
    // The sandbox holds only what was copied: no sample content of its own mixes in.
    const sandboxClient = await t.clientFor(sandboxId);
    const copied = new Set(
      (await t.manager.getSandbox({ userId: owner.id, id: sandboxId })).manifest!.items.map((i) => Number(i.sandboxId)),
    );
    for (const type of ["pages", "posts"]) {
      const { data } = await sandboxClient.get<Array<{ id: number }>>(`/wp/v2/${type}`, {
        status: "any",
        per_page: 100,
      });
      for (const item of data) expect(copied.has(item.id)).toBe(true);
    }

    // Apply: the live site changes in one batch; the result is a live change set.
    const applied = await changeSetRoute(applyRoute, changeSetId);
    expect(applied.status).toBe(200);
    expect(applied.json.changeSet).toMatchObject({ target: "live", status: "applied" });
    expect(await liveContent(id)).toBe(para("Open 7–19, also on Sundays"));
    expect((await changeSetRoute(showRoute, changeSetId)).json.changeSet.status).toBe("applied");
    expect((await changeSetRoute(applyRoute, changeSetId)).json.error.code).toBe("not_applicable");
    const audit = await listChangeAudit({ changeSetId });
    expect(audit.map((a) => [a.action, a.outcome])).toContainEqual(["apply", "ok"]);

    // Undo, like any live change set: the live site as before.
    const undone = await changeSetRoute(undoRoute, applied.json.changeSet.id);
    expect(undone.status).toBe(200);
    expect(undone.json.changeSet.status).toBe("undone");
    expect(await liveContent(id)).toBe(para("Open 8–18"));
  });

  it("refuses to apply over a person's edit on the live site, naming the page, and changes nothing", async () => {
    const id = await livePage("Prices", para("Bread 3 €"));
    const { conversationId, rehearsal, changeSetId } = await rehearsedEdit(id, "prices", para("Bread 4 €"));
    expect(await liveContent(id)).toBe(para("Bread 3 €"));

    await humanEditPost(wp.local.wpPath, id, { content: para("Bread 3.50 € (Ana)") });
    const refused = await changeSetRoute(applyRoute, changeSetId);
    expect(refused.status).toBe(409);
    expect(refused.json.error.code).toBe("drifted");
    expect(refused.json.error.message).toContain('"Prices"');
    expect(refused.json.error.details.items).toEqual([expect.objectContaining({ title: "Prices" })]);
    expect(await liveContent(id)).toBe(para("Bread 3.50 € (Ana)"));
    expect((await changeSetRoute(showRoute, changeSetId)).json.changeSet.status).toBe("pending");

    // The next turn of that conversation keeps the sandbox while the rehearsal waits (apply keeps refusing).
    const again = await t.manager.rehearsal({ userId: owner.id, siteId, conversationId, live });
    expect(again.sandbox.id).toBe(rehearsal.sandbox.id);
  });

  it("applies over a person's live edit of another field, keeping it, and refuses one of the same field, naming it", async () => {
    // Two rehearsals here, beside the ones earlier tests leave waiting: room for both.
    await closeOwnersSandboxes();
    const id = await livePage("Opening", para("Open 8–18"));
    const { changeSetId } = await rehearsedEdit(id, "opening", para("Open 7–19"));
    // Ana edits the live page's title since the copy: a field the rehearsal did not touch.
    await humanEditPost(wp.local.wpPath, id, { title: "Opening hours (Ana)" });
    const applied = await changeSetRoute(applyRoute, changeSetId);
    expect(applied.status, applied.text).toBe(200);
    expect(await liveContent(id)).toBe(para("Open 7–19"));
    expect((await readItem(live, `post:${id}`)).title).toBe("Opening hours (Ana)");

    const other = await livePage("Closing", para("Closed on Sundays"));
    const second = await rehearsedEdit(other, "closing", para("Closed on Mondays"));
    await humanEditPost(wp.local.wpPath, other, { content: para("Closed on Sundays and holidays (Ana)") });
    const refused = await changeSetRoute(applyRoute, second.changeSetId);
    expect(refused.status).toBe(409);
    expect(refused.json.error.code).toBe("drifted");
    expect(refused.json.error.details.items).toEqual([expect.objectContaining({ title: "Closing", field: "content" })]);
    expect(await liveContent(other)).toBe(para("Closed on Sundays and holidays (Ana)"));
    expect((await changeSetRoute(discardRoute, second.changeSetId)).status).toBe(200);
  });

  it("names a drifted page as the live site calls it now, not as the rehearsal renamed it", async () => {
    const id = await livePage("Menu", para("Soup 5 €"));
    const renamed = await rehearsedEdit(id, "menu", para("Soup 6 €"), "Lunch menu");
    await humanEditPost(wp.local.wpPath, id, { content: para("Soup 5.50 € (Ana)") });
    const refused = await changeSetRoute(applyRoute, renamed.changeSetId);
    expect(refused.json.error.code).toBe("drifted");
    // The live page was never called "Lunch menu": that title exists only in the sandbox.
    expect(refused.json.error.message).toContain('"Menu"');
    expect(refused.json.error.message).not.toContain("Lunch menu");
    expect(refused.json.error.details.items).toEqual([expect.objectContaining({ title: "Menu" })]);

    // Ana renames the live page too: the refusal names it as she left it.
    await humanEditPost(wp.local.wpPath, id, { title: "Menu of the week" });
    const again = await changeSetRoute(applyRoute, renamed.changeSetId);
    expect(again.json.error.code).toBe("drifted");
    expect(again.json.error.message).toContain('"Menu of the week"');
    // Both fields the rehearsal wrote are now the person's too: each conflict names the page as she left it.
    expect(again.json.error.details.items).toEqual([
      expect.objectContaining({ title: "Menu of the week", field: "title" }),
      expect.objectContaining({ title: "Menu of the week", field: "content" }),
    ]);
    // Its sandbox goes, so the tests after this one find room for theirs.
    expect((await changeSetRoute(discardRoute, renamed.changeSetId)).status).toBe(200);
  });

  it("discards a rehearsal: the set is discarded, the sandbox copy goes, the live site never changed", async () => {
    const id = await livePage("Team", para("Ana and Ben"));
    const { conversationId, rehearsal, changeSetId } = await rehearsedEdit(id, "team", para("Ana, Ben and Cleo"));

    const discarded = await changeSetRoute(discardRoute, changeSetId);
    expect(discarded.status).toBe(200);
    expect(discarded.json.changeSet).toMatchObject({ status: "discarded", target: "sandbox" });
    expect(await liveContent(id)).toBe(para("Ana and Ben"));
    expect((await preview(rehearsal.sandbox.id, "/team/")).status).toBe(404);
    expect(await findConversationSandbox({ conversationId })).toBeUndefined();
    expect((await changeSetRoute(applyRoute, changeSetId)).json.error.code).toBe("not_applicable");
  });

  it("copies the site again for the next turn when the live site changed and nothing waits for Apply", async () => {
    const id = await livePage("Menu of the day", para("Soup"));
    const conversationId = randomUUID();
    await insertConversation({ id: conversationId, userId: owner.id, siteId, title: "menu", now: new Date() });
    const first = await t.manager.rehearsal({ userId: owner.id, siteId, conversationId, live });
    expect(first.fresh).toBe(true);
    const same = await t.manager.rehearsal({ userId: owner.id, siteId, conversationId, live });
    expect(same.sandbox.id).toBe(first.sandbox.id);

    await humanEditPost(wp.local.wpPath, id, { content: para("Soup and bread") });
    const next = await t.manager.rehearsal({ userId: owner.id, siteId, conversationId, live });
    expect(next.fresh).toBe(true);
    expect(next.sandbox.id).not.toBe(first.sandbox.id);
    const copy = next.manifest.items.find((item) => item.liveRef === `post:${id}`)!;
    const { data } = await next.client.get<{ content: { raw: string } }>(`/wp/v2/pages/${copy.sandboxId}`, {
      context: "edit",
    });
    expect(data.content.raw).toBe(para("Soup and bread"));
    expect((await findConversationSandbox({ conversationId }))?.sandboxId).toBe(next.sandbox.id);
    await t.manager.deleteSandbox({ userId: owner.id, id: next.sandbox.id });
  });

  it("goes on in a fresh copy when the conversation's container vanished, and says so", async () => {
    await livePage("Opening times", para("9 to 5"));
    const conversationId = randomUUID();
    await insertConversation({ id: conversationId, userId: owner.id, siteId, title: "times", now: new Date() });
    const first = await t.manager.rehearsal({ userId: owner.id, siteId, conversationId, live });
    // The container goes behind Sitewright's back (a host restart, an operator's `podman rm`).
    execFileSync("podman", ["rm", "--force", first.sandbox.containerId!], { stdio: "ignore" });
    const next = await t.manager.rehearsal({ userId: owner.id, siteId, conversationId, live });
    expect(next).toMatchObject({ fresh: true, replaced: "vanished" });
    expect(next.sandbox.id).not.toBe(first.sandbox.id);
    expect((await next.client.get<unknown[]>("/wp/v2/pages", { per_page: 1 })).status).toBe(200);
    expect((await findConversationSandbox({ conversationId }))?.sandboxId).toBe(next.sandbox.id);
    expect(systemPrompt({ url: "https://x.example" }, [], undefined, undefined, [], next.replaced)).toContain(
      "works in a fresh copy of the live site",
    );
    await t.manager.deleteSandbox({ userId: owner.id, id: next.sandbox.id });
  });

  it("applies creations first with their media mapped to the live site, and undo removes them", async () => {
    const id = await livePage("Gallery", para("Photos soon"));
    const conversationId = randomUUID();
    await insertConversation({ id: conversationId, userId: owner.id, siteId, title: "gallery", now: new Date() });
    const rehearsal = await t.manager.rehearsal({ userId: owner.id, siteId, conversationId, live });
    const sandboxPage = rehearsal.manifest.items.find((item) => item.liveRef === `post:${id}`)!;
    const scope = sandboxScope(conversationId, rehearsal.sandbox.id);
    // An edit, then a creation whose content links to the preview's own address: order and addresses are mapped.
    await writeThroughAgent({ scope, client: rehearsal.client }, operationsByName.get("update_page")!, {
      id: Number(sandboxPage.sandboxId),
      content: para("Photos below"),
    });
    const created = await writeThroughAgent(
      { scope, client: rehearsal.client },
      operationsByName.get("create_draft")!,
      {
        type: "page",
        title: "Summer photos",
        content: para(`See <a href="${APP}/preview/${rehearsal.sandbox.id}/gallery/">the gallery</a>`),
      },
    );
    const changeSetId = (created.data as { changeSetId: string }).changeSetId;

    const applied = await changeSetRoute(applyRoute, changeSetId);
    expect(applied.status).toBe(200);
    const items = applied.json.changeSet.items as Array<{ action: string; targetId: string; title: string }>;
    expect(items.map((item) => item.action)).toEqual(["create", "update"]);
    const newId = Number(items[0]!.targetId.split(":")[1]);
    const { data: made } = await wp.admin.get<{ status: string; title: { raw: string }; content: { raw: string } }>(
      `/wp/v2/pages/${newId}`,
      { context: "edit" },
    );
    expect(made).toMatchObject({ status: "draft", title: { raw: "Summer photos" } });
    expect(made.content.raw).toContain(`href="${wp.local.url}/gallery/"`);
    expect(made.content.raw).not.toContain("/preview/");
    expect(await liveContent(id)).toBe(para("Photos below"));

    expect((await changeSetRoute(undoRoute, applied.json.changeSet.id)).status).toBe(200);
    expect(await liveContent(id)).toBe(para("Photos soon"));
    const gone = await wp.admin.get(`/wp/v2/pages/${newId}`, { context: "edit" }).catch((error: unknown) => error);
    expect((gone as { siteStatus?: number }).siteStatus ?? (gone as { status?: number }).status).not.toBe(200);
  });

  it("applies a rehearsed palette and header to the live site in one batch, undo puts them back, and a person's later edit of the styles is never overwritten", async () => {
    const { data: info } = await live.get<{ theme: { stylesheet: string; isBlockTheme: boolean } }>(
      "/sitewright/v1/info",
    );
    expect(info.theme.isBlockTheme).toBe(true);
    const stylesRef = `global_styles:${info.theme.stylesheet}`;
    await closeOwnersSandboxes();
    const conversationId = randomUUID();
    await insertConversation({ id: conversationId, userId: owner.id, siteId, title: "design", now: new Date() });
    const rehearsal = await t.manager.rehearsal({ userId: owner.id, siteId, conversationId, live });
    const { data: parts } = await wp.admin.get<Array<{ slug: string; area: string; theme: string }>>(
      "/wp/v2/template-parts",
      { context: "edit", _fields: "slug,area,theme" },
    );
    const header = (parts.find((part) => part.area === "header") ?? parts[0])!.slug;
    const partRef = `template_part:${header}`;
    // The copy runs the live theme and records the live versions of its design items.
    const recorded = new Map(rehearsal.manifest.items.map((item) => [item.liveRef, item.liveVersion]));
    const liveStyles = await readItem(live, stylesRef);
    const livePart = await readItem(live, partRef);
    expect(recorded.get(stylesRef)).toBe(liveStyles.version);
    expect(recorded.get(partRef)).toBe(livePart.version);
    const frontBefore = (await wp.local.fetch("/")).body;

    const scope = sandboxScope(conversationId, rehearsal.sandbox.id);
    await writeThroughAgent({ scope, client: rehearsal.client }, operationsByName.get("update_global_styles")!, {
      colors: { primary: "#123456" },
    });
    const written = await writeThroughAgent(
      { scope, client: rehearsal.client },
      operationsByName.get("update_template_part")!,
      {
        slug: header,
        position: "1",
        action: "before",
        markup: "<!-- wp:paragraph -->\n<p>Rehearsed header line</p>\n<!-- /wp:paragraph -->",
      },
    );
    const changeSetId = (written.data as { changeSetId: string }).changeSetId;
    expect((await preview(rehearsal.sandbox.id, "/")).text).toContain("Rehearsed header line");
    expect((await readItem(live, stylesRef)).version).toBe(liveStyles.version);
    expect((await wp.local.fetch("/")).body).not.toContain("Rehearsed header line");

    const applied = await changeSetRoute(applyRoute, changeSetId);
    expect(applied.status, JSON.stringify(applied.json)).toBe(200);
    expect(applied.json.changeSet).toMatchObject({ target: "live", status: "applied" });
    expect(applied.json.changeSet.items.map((item: { kind: string }) => item.kind).sort()).toEqual([
      "global_styles",
      "template_part",
    ]);
    expect((await wp.local.fetch("/")).body).toContain("Rehearsed header line");
    expect(JSON.stringify((await readItem(live, stylesRef)).state)).toContain("#123456");
    // The live set reads as the rehearsal did: each colour by its name, not the raw settings object.
    const styles = applied.json.changeSet.items.find((item: { kind: string }) => item.kind === "global_styles");
    expect(Object.keys(styles.after).every((key: string) => key.startsWith("Colour "))).toBe(true);
    expect(Object.values(styles.after)).toContain("#123456");

    const undone = await changeSetRoute(undoRoute, applied.json.changeSet.id);
    expect(undone.status, JSON.stringify(undone.json)).toBe(200);
    expect((await readItem(live, stylesRef)).version).toBe(liveStyles.version);
    expect((await readItem(live, partRef)).version).toBe(livePart.version);
    expect((await wp.local.fetch("/")).body).toBe(frontBefore);

    // A second rehearsal of the styles; meanwhile the owner changes the live styles in the Site Editor.
    const next = await t.manager.rehearsal({ userId: owner.id, siteId, conversationId, live });
    const second = await writeThroughAgent(
      { scope: { ...scope, turnId: randomUUID(), sandboxId: next.sandbox.id }, client: next.client },
      operationsByName.get("update_global_styles")!,
      { colors: { primary: "#654321" } },
    );
    const current = await readItem(live, stylesRef);
    await writeItems(wp.admin, [
      {
        ref: stylesRef,
        expect: current.version,
        action: "update",
        fields: { styles: { color: { background: "#fdf6e3" } } },
      },
    ]);
    const personal = await readItem(live, stylesRef);
    const refused = await changeSetRoute(applyRoute, (second.data as { changeSetId: string }).changeSetId);
    expect(refused.status).toBe(409);
    expect(refused.json.error.code).toBe("drifted");
    expect(refused.json.error.message).toContain('"Global styles"');
    expect((await readItem(live, stylesRef)).version).toBe(personal.version);
    expect(JSON.stringify(personal.state)).not.toContain("#654321");

    // A copy that could not run the live theme records no design items: apply refuses them by name, writing nothing.
    const manifest = (await findSandboxManifest({ sandboxId: next.sandbox.id }))!;
    await upsertSandboxManifest({
      ...manifest,
      items: manifest.items.filter((item) => !item.liveRef?.startsWith("global_styles:")),
    });
    const otherTheme = await changeSetRoute(applyRoute, (second.data as { changeSetId: string }).changeSetId);
    expect(otherTheme.status).toBe(409);
    expect(otherTheme.json.error).toMatchObject({ code: "not_applicable" });
    expect(otherTheme.json.error.details.items[0].reason).toContain("theme");
    expect((await readItem(live, stylesRef)).version).toBe(personal.version);

    await writeItems(wp.admin, [
      { ref: stylesRef, expect: personal.version, action: "update", fields: { customised: false } },
    ]);
    await t.manager.deleteSandbox({ userId: owner.id, id: next.sandbox.id });
  });

  it("finds what the first copy did not bring (a draft, a private page), copies it in, and applies the edit live", async () => {
    await closeOwnersSandboxes();
    const shop = await livePage("Shop", para("Everything we sell"));
    const { data: draft } = await wp.admin.post<{ id: number }>("/wp/v2/pages", {
      title: "Summer sale",
      content: para("Twenty percent off"),
      status: "draft",
      parent: shop,
    });
    const { data: secret } = await wp.admin.post<{ id: number }>("/wp/v2/pages", {
      title: "Staff notes",
      content: para("Inventory on Friday"),
      status: "private",
    });
    setAgentModelForTests(
      scriptedModel([
        { toolCalls: [{ name: "list_pages", input: { search: "Summer sale" } }] },
        (prompt) => {
          const found = (toolResults(prompt).at(-1)!.output as any).site_data.data.items;
          expect(found.map((item: { title: string }) => item.title)).toEqual(["Summer sale"]);
          return {
            toolCalls: [
              { name: "update_page", input: { id: found[0].id, content: para("Thirty percent off") } },
              { name: "read_page", input: { type: "page", id: secret.id } },
            ],
          };
        },
        { text: "Changed the sale in the sandbox." },
      ]),
    );
    const turn = await chatTurn({ message: "Make the summer sale thirty percent off" });
    expect(turn.metadata.mode).toBe("sandbox");
    const sandboxId = turn.metadata.sandboxId as string;
    const outputs = turn.chunks
      .filter((c) => c.type === "tool-output-available")
      .map((c) => c.output as Record<string, any>);
    expect(outputs.map((o) => o.ok)).toEqual([true, true, true]);
    expect(JSON.stringify(outputs[2])).toContain("Inventory on Friday");

    // Both were copied in and recorded with their live versions; the draft keeps its parent, mapped to the copy.
    const manifest = (await findSandboxManifest({ sandboxId }))!;
    const entry = (id: number) => manifest.items.find((item) => item.liveRef === `post:${id}`);
    expect(entry(draft.id)?.liveVersion).toBe((await readItem(live, `post:${draft.id}`)).version);
    expect(entry(secret.id)?.liveVersion).toBeTruthy();
    const sandboxClient = await t.clientFor(sandboxId);
    const { data: copy } = await sandboxClient.get<{ parent: number; status: string; content: { raw: string } }>(
      `/wp/v2/pages/${entry(draft.id)!.sandboxId}`,
      { context: "edit" },
    );
    expect(copy).toMatchObject({ parent: entry(shop)!.sandboxId, status: "draft" });
    expect(copy.content.raw).toBe(para("Thirty percent off"));
    expect(await liveContent(draft.id)).toBe(para("Twenty percent off"));

    const applied = await changeSetRoute(applyRoute, turn.metadata.changeSetId as string);
    expect(applied.status, JSON.stringify(applied.json)).toBe(200);
    expect(await liveContent(draft.id)).toBe(para("Thirty percent off"));
    const { data: after } = await wp.admin.get<{ parent: number; status: string }>(`/wp/v2/pages/${draft.id}`, {
      context: "edit",
    });
    expect(after).toMatchObject({ parent: shop, status: "draft" });
    await t.manager.deleteSandbox({ userId: owner.id, id: sandboxId });
  });

  it("applies some items first (partially applied), refuses them twice and a split of one page, then the rest", async () => {
    await closeOwnersSandboxes();
    const hours = await livePage("Hours", para("9 to 5"));
    const prices = await livePage("Price list", para("Tea 2 €"));
    const conversationId = randomUUID();
    await insertConversation({ id: conversationId, userId: owner.id, siteId, title: "two", now: new Date() });
    const rehearsal = await t.manager.rehearsal({ userId: owner.id, siteId, conversationId, live });
    const sandboxIdOf = (id: number) =>
      Number(rehearsal.manifest.items.find((item) => item.liveRef === `post:${id}`)!.sandboxId);
    const scope = sandboxScope(conversationId, rehearsal.sandbox.id);
    const update = operationsByName.get("update_page")!;
    await writeThroughAgent({ scope, client: rehearsal.client }, update, {
      id: sandboxIdOf(hours),
      content: para("8 to 6"),
    });
    await writeThroughAgent({ scope, client: rehearsal.client }, update, { id: sandboxIdOf(prices), title: "Prices" });
    const last = await writeThroughAgent({ scope, client: rehearsal.client }, update, {
      id: sandboxIdOf(prices),
      content: para("Tea 2.50 €"),
    });
    const changeSetId = (last.data as { changeSetId: string }).changeSetId;
    const items = (await changeSetRoute(showRoute, changeSetId)).json.changeSet.items as Array<{
      id: string;
      title: string;
    }>;
    expect(items).toHaveLength(3);
    const [hoursItem, pricesTitle] = items;

    const split = await changeSetRoute(applyRoute, changeSetId, { itemIds: [pricesTitle!.id] });
    expect(split.status).toBe(409);
    expect(split.json.error.code).toBe("not_applicable");
    expect(await liveContent(prices)).toBe(para("Tea 2 €"));

    const first = await changeSetRoute(applyRoute, changeSetId, { itemIds: [hoursItem!.id] });
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    expect(await liveContent(hours)).toBe(para("8 to 6"));
    expect(await liveContent(prices)).toBe(para("Tea 2 €"));
    expect((await changeSetRoute(showRoute, changeSetId)).json.changeSet.status).toBe("partially_applied");
    const again = await changeSetRoute(applyRoute, changeSetId, { itemIds: [hoursItem!.id] });
    expect(again.status).toBe(409);
    expect(again.json.error.message).toContain("already applied");

    const rest = await changeSetRoute(applyRoute, changeSetId);
    expect(rest.status, JSON.stringify(rest.json)).toBe(200);
    expect(rest.json.changeSet.id).not.toBe(first.json.changeSet.id);
    expect(rest.json.changeSet.items).toHaveLength(1);
    expect(await liveContent(prices)).toBe(para("Tea 2.50 €"));
    const { data: page } = await wp.admin.get<{ title: { raw: string } }>(`/wp/v2/pages/${prices}`, {
      context: "edit",
    });
    expect(page.title.raw).toBe("Prices");
    expect((await changeSetRoute(showRoute, changeSetId)).json.changeSet.status).toBe("applied");
    expect((await changeSetRoute(applyRoute, changeSetId)).json.error.code).toBe("not_applicable");
    await t.manager.deleteSandbox({ userId: owner.id, id: rehearsal.sandbox.id });
  });

  it("writes an approved live plan to the live site, even when sandboxes are the default", async () => {
    const { data } = await wp.admin.post<{ id: number }>("/wp/v2/pages", { title: "Launch", status: "draft" });
    setAgentModelForTests(
      scriptedModel([
        { toolCalls: [{ name: "publish_page", input: { type: "page", id: data.id } }] },
        { text: "Published." },
      ]),
    );
    const asked = await chatTurn({ message: `Publish page ${data.id}`, mode: "live" });
    expect(asked.metadata.mode).toBe("live");
    const request = asked.chunks.find((c) => c.type === "tool-approval-request") as unknown as
      | { approvalId: string }
      | undefined;
    expect(request).toBeDefined();
    const conversationId = (
      asked.chunks.find((c) => c.type === "data-conversation") as unknown as { data: { conversationId: string } }
    ).data.conversationId;

    // The approval carries no mode: it continues the live turn, and the live page is published.
    const answered = await chatTurn({ conversationId, approvals: [{ id: request!.approvalId, approved: true }] });
    expect(answered.metadata.mode).toBe("live");
    const page = await wp.admin.get<{ status: string }>(`/wp/v2/pages/${data.id}`, { context: "edit" });
    expect(page.data.status).toBe("publish");
    expect(await findConversationSandbox({ conversationId })).toBeUndefined();
  });
});

describe("exact apply (issue 19)", () => {
  /** A conversation's rehearsal and a writer of turns in it: each turn is its own change set in the one sandbox. */
  async function rehearsalOf(id: number, title: string) {
    await closeOwnersSandboxes();
    const conversationId = randomUUID();
    await insertConversation({ id: conversationId, userId: owner.id, siteId, title, now: new Date() });
    const rehearsal = await t.manager.rehearsal({ userId: owner.id, siteId, conversationId, live });
    const sandboxId = Number(rehearsal.manifest.items.find((item) => item.liveRef === `post:${id}`)!.sandboxId);
    const turn = async (input: Record<string, unknown>, operation = "update_page") => {
      const written = await writeThroughAgent(
        { scope: sandboxScope(conversationId, rehearsal.sandbox.id), client: rehearsal.client },
        operationsByName.get(operation)!,
        { id: sandboxId, ...input },
      );
      return (written.data as { changeSetId: string }).changeSetId;
    };
    return { rehearsal, turn };
  }
  const liveTitle = async (id: number) =>
    (await wp.admin.get<{ title: { raw: string } }>(`/wp/v2/pages/${id}`, { context: "edit" })).data.title.raw;

  it("applies only what the chosen change set changed: another set's link on the same page stays in the sandbox", async () => {
    const original = para('Members: <a href="https://example.com/login">Sign in</a> to see your account.');
    const id = await livePage("Members", original);
    const { rehearsal, turn } = await rehearsalOf(id, "Two turns on one page");
    const titleSet = await turn({ title: "Members area" });
    const linkSet = await turn({
      content: para('Members: <a href="https://evil.example/login">Sign in</a> to see your account.'),
    });

    const applied = await changeSetRoute(applyRoute, titleSet);
    expect(applied.status).toBe(200);
    expect(await liveTitle(id)).toBe("Members area");
    expect(await liveContent(id)).toBe(original); // the link change was never in this change set
    expect((await changeSetRoute(showRoute, linkSet)).json.changeSet.status).toBe("pending");

    const second = await changeSetRoute(applyRoute, linkSet);
    expect(second.status).toBe(200);
    expect(await liveContent(id)).toContain("https://evil.example/login");

    // Undo of each live set gives the page back byte for byte.
    expect((await changeSetRoute(undoRoute, second.json.changeSet.id)).status).toBe(200);
    expect((await changeSetRoute(undoRoute, applied.json.changeSet.id)).status).toBe(200);
    expect(await liveContent(id)).toBe(original);
    expect(await liveTitle(id)).toBe("Members");
    await t.manager.deleteSandbox({ userId: owner.id, id: rehearsal.sandbox.id });
  });

  it("refuses a later set alone when an earlier one that touched the page is not live (409 superseded), and applies both when chosen", async () => {
    const id = await livePage("Opening", para("Open 8 to 16"));
    const { rehearsal, turn } = await rehearsalOf(id, "Superseded");
    const first = await turn({ content: para("Open 9 to 17") });
    const second = await turn({ content: para("Open 9 to 18") });

    const alone = await changeSetRoute(applyRoute, second);
    expect(alone.status).toBe(409);
    expect(alone.json.error.code).toBe("superseded");
    expect(alone.json.error.details.items).toEqual([expect.objectContaining({ changeSetId: first })]);
    expect(await liveContent(id)).toBe(para("Open 8 to 16"));
    expect((await changeSetRoute(showRoute, second)).json.changeSet.status).toBe("pending");

    const both = await changeSetRoute(applyRoute, second, { changeSetIds: [first] });
    expect(both.status).toBe(200);
    expect(await liveContent(id)).toBe(para("Open 9 to 18"));
    for (const set of [first, second]) {
      expect((await changeSetRoute(showRoute, set)).json.changeSet.status).toBe("applied");
    }
    await t.manager.deleteSandbox({ userId: owner.id, id: rehearsal.sandbox.id });
  });

  it("changes the live site once for six parallel applies of a creation, and once for an Apply racing a Discard", async () => {
    await closeOwnersSandboxes();
    const conversationId = randomUUID();
    await insertConversation({ id: conversationId, userId: owner.id, siteId, title: "Race", now: new Date() });
    const rehearsal = await t.manager.rehearsal({ userId: owner.id, siteId, conversationId, live });
    const title = `Race ${randomUUID().slice(0, 8)}`;
    const created = await writeThroughAgent(
      { scope: sandboxScope(conversationId, rehearsal.sandbox.id), client: rehearsal.client },
      operationsByName.get("create_draft")!,
      { title },
    );
    const changeSetId = (created.data as { changeSetId: string }).changeSetId;
    const answers = await Promise.all(Array.from({ length: 6 }, () => changeSetRoute(applyRoute, changeSetId)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409).map((a) => a.json.error.code)).toEqual(
      Array(5).fill("not_applicable"),
    );
    const found = await wp.admin.get<unknown[]>("/wp/v2/pages", { search: title, status: "draft", context: "edit" });
    expect(found.data).toHaveLength(1);

    // Apply and Discard at once: one wins, the other answers not_applicable, and the live site follows the winner.
    const id = await livePage("Race page", para("Before the race"));
    const other = await rehearsalOf(id, "Apply or discard");
    const set = await other.turn({ content: para("After the race") });
    const [apply, discard] = await Promise.all([changeSetRoute(applyRoute, set), changeSetRoute(discardRoute, set)]);
    expect([apply.status, discard.status].sort()).toEqual([200, 409]);
    const status = (await changeSetRoute(showRoute, set)).json.changeSet.status;
    if (apply.status === 200) {
      expect(status).toBe("applied");
      expect(await liveContent(id)).toBe(para("After the race"));
    } else {
      expect(status).toBe("discarded");
      expect(await liveContent(id)).toBe(para("Before the race"));
    }
  });
});

/** A new conversation's rehearsal, with what its edits need: the sandbox's id of a live page, the scope, update_page. */
async function rehearsalFor(title: string) {
  const conversationId = randomUUID();
  await insertConversation({ id: conversationId, userId: owner.id, siteId, title, now: new Date() });
  const rehearsal = await t.manager.rehearsal({ userId: owner.id, siteId, conversationId, live });
  const sandboxIdOf = (id: number) =>
    Number(rehearsal.manifest.items.find((item) => item.liveRef === `post:${id}`)!.sandboxId);
  const scope = sandboxScope(conversationId, rehearsal.sandbox.id);
  const update = operationsByName.get("update_page")!;
  return { conversationId, rehearsal, sandboxIdOf, scope, update };
}

describe("an Apply whose process dies mid-write", () => {
  class SimulatedDeath extends Error {
    constructor() {
      super("the process died here");
      this.name = "SimulatedDeath";
    }
  }

  /**
   * The live site client of a process that dies right after WordPress wrote the replay's batch (its answer never
   * read), as a SIGKILL there would: the run stays recorded and `running`, its batch `writing`. Reads go through.
   */
  const dyingAfterWrite = (): SiteClient => ({
    get: (route, query) => live.get(route, query),
    put: (route, body) => live.put(route, body),
    delete: (route, query) => live.delete(route, query),
    post: async (route, body) => {
      if (route !== ITEMS_ROUTE) return live.post(route, body);
      await live.post(route, body);
      throw new SimulatedDeath();
    },
  });

  // Simulated at the journal's boundary (lib/changes/journal.ts): the run is recorded, the batch reached WordPress,
  // the process stops before reading the answer; the takeover is resumeInterruptedRuns, the same code the next
  // instance's sweeper runs after a restart (test/reliability/apply-restart.test.ts kills a real process).
  it("is finished by the next instance: each page written once, the live set recorded, the rehearsal applied, undo works", async () => {
    await closeOwnersSandboxes();
    const writes = postWriteCounter(wp.local.wpPath);
    const hours = await livePage("Shop hours", para("9 to 5"));
    const prices = await livePage("Shop prices", para("Tea 2 €"));
    const { rehearsal, sandboxIdOf, scope, update } = await rehearsalFor("dies");
    await writeThroughAgent({ scope, client: rehearsal.client }, update, {
      id: sandboxIdOf(hours),
      content: para("8 to 6"),
    });
    await writeThroughAgent({ scope, client: rehearsal.client }, update, {
      id: sandboxIdOf(prices),
      title: "Our prices",
    });
    const last = await writeThroughAgent({ scope, client: rehearsal.client }, update, {
      id: sandboxIdOf(prices),
      content: para("Tea 2.50 €"),
    });
    const changeSetId = (last.data as { changeSetId: string }).changeSetId;
    await writes.watch([hours, prices]);

    const request = { userId: owner.id, siteId, changeSetId };
    await expect(applyRehearsal(request, dyingAfterWrite(), t.manager.rehearsals())).rejects.toThrow(SimulatedDeath);
    // Read from the store: the owner's read of the set would take the run over at once (resumeOnRead).
    expect((await findChangeSet({ id: changeSetId, userId: owner.id, siteId }))?.status).toBe("applying");
    expect(await findRunningRun(changeSetId)).toBeDefined();

    expect(await resumeInterruptedRuns({ siteClient: () => live, changeSetId })).toBe(1);
    expect(await writes.counts()).toEqual({ [hours]: 1, [prices]: 1 });
    expect(await liveContent(hours)).toBe(para("8 to 6"));
    expect(await liveContent(prices)).toBe(para("Tea 2.50 €"));
    const rehearsed = (await changeSetRoute(showRoute, changeSetId)).json.changeSet;
    expect(rehearsed.status).toBe("applied");
    expect(rehearsed.resumedAt).toBeDefined();
    const liveSetId = (await getChangeSetItems(changeSetId))[0]!.madeLiveBy!;
    expect((await getChangeSetItems(changeSetId)).every((item) => item.madeLiveBy === liveSetId)).toBe(true);
    const liveItems = await getChangeSetItems(liveSetId);
    expect(liveItems.map((item) => [item.ref, item.status])).toEqual([
      [`post:${hours}`, "applied"],
      [`post:${prices}`, "applied"],
    ]);
    // The sandbox's manifest moved on to the versions written: a later rehearsal applies over them.
    const manifest = await findSandboxManifest({ sandboxId: rehearsal.sandbox.id });
    const version = async (id: number) => (await readItem(live, `post:${id}`)).version;
    expect(manifest!.items.find((item) => item.liveRef === `post:${hours}`)?.liveVersion).toBe(await version(hours));
    const audit = await listChangeAudit({ changeSetId });
    expect(audit.some((row) => row.action === "apply" && row.detail?.includes("after a restart"))).toBe(true);

    // Undo of what the takeover recorded puts both pages back, title included.
    expect((await changeSetRoute(undoRoute, liveSetId)).status).toBe(200);
    expect(await liveContent(hours)).toBe(para("9 to 5"));
    expect(await liveContent(prices)).toBe(para("Tea 2 €"));
    expect((await readItem(live, `post:${prices}`)).title).toBe("Shop prices");
    await t.manager.deleteSandbox({ userId: owner.id, id: rehearsal.sandbox.id });
  });

  // The process dies right after its claim (the rehearsal `applying`), while it reads the sandbox and the live states:
  // no run was recorded, nothing written. Simulated by taking the claim as the Apply does and going no further.
  it("released by the sweeper after the lease when the process died before recording its run; Apply again writes each page once", async () => {
    await closeOwnersSandboxes();
    const writes = postWriteCounter(wp.local.wpPath);
    const hours = await livePage("Opening hours", para("10 to 4"));
    const prices = await livePage("Price list", para("Coffee 3 €"));
    const { rehearsal, sandboxIdOf, scope, update } = await rehearsalFor("claim dies");
    await writeThroughAgent({ scope, client: rehearsal.client }, update, {
      id: sandboxIdOf(hours),
      content: para("9 to 6"),
    });
    const last = await writeThroughAgent({ scope, client: rehearsal.client }, update, {
      id: sandboxIdOf(prices),
      content: para("Coffee 3.20 €"),
    });
    const changeSetId = (last.data as { changeSetId: string }).changeSetId;
    await writes.watch([hours, prices]);
    const status = async () => (await findChangeSet({ id: changeSetId, userId: owner.id, siteId }))?.status;

    const claimed = await claimRehearsalsForApply({ ids: [changeSetId], userId: owner.id, now: now() });
    expect(claimed).toBeDefined();
    expect(await status()).toBe("applying");
    expect(await findRunningRun(changeSetId)).toBeUndefined();
    // A click meanwhile is refused: the claim holds until it is released.
    await expect(
      applyRehearsal({ userId: owner.id, siteId, changeSetId }, live, t.manager.rehearsals()),
    ).rejects.toThrow(/being applied already/);

    // Within the lease the claim may belong to a live process still reading: it is kept.
    expect(await resumeInterruptedRuns({ siteClient: () => live, changeSetId })).toBe(0);
    expect(await status()).toBe("applying");
    try {
      advanceClockForTests((env().CHANGE_RUN_LEASE_SECONDS + 1) * 1000);
      expect(await resumeInterruptedRuns({ siteClient: () => live, changeSetId })).toBe(0);
      expect(await status()).toBe("pending");
      // The stalled process, waking up after the release, records no run over it (so it cannot write).
      await expect(
        startRun({
          kind: "replay",
          mode: "atomic",
          changeSetId,
          userId: owner.id,
          siteId,
          entries: [],
          claim: { sets: [changeSetId] },
        }),
      ).rejects.toThrow(ClaimReleasedError);
      expect(await findRunningRun(changeSetId)).toBeUndefined();

      await applyRehearsal({ userId: owner.id, siteId, changeSetId }, live, t.manager.rehearsals());
    } finally {
      resetClockForTests();
    }
    expect(await writes.counts()).toEqual({ [hours]: 1, [prices]: 1 });
    expect(await liveContent(hours)).toBe(para("9 to 6"));
    expect(await liveContent(prices)).toBe(para("Coffee 3.20 €"));
    expect(await status()).toBe("applied");
    await t.manager.deleteSandbox({ userId: owner.id, id: rehearsal.sandbox.id });
  });
});
