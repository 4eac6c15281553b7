/**
 * Several changes to one item in one change set (API.md v1.3 "Durable writes"; docs/change-sets.md, "Several changes
 * to one item"), on the real WordPress with our plugin and PostgreSQL, through `POST /chat` with a scripted model,
 * the chat's approvals, the review page's Approve and the Undo route. Each later change is planned against the state
 * the earlier pending one leaves, all of them are written on the click, in order, and undone as one back to the state
 * before the first, byte for byte. A person's edit between the plan and the click is still refused.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { POST as applyRoute } from "@/app/sites/[id]/changes/[changeSetId]/apply/route";
import { POST as approveRoute } from "@/app/sites/[id]/changes/[changeSetId]/approve/route";
import { POST as undoRoute } from "@/app/sites/[id]/changes/[changeSetId]/undo/route";
import { resetBreakersForTests } from "@/lib/agent/breaker";
import { planCall } from "@/lib/agent/call-operation";
import { setAgentModelForTests } from "@/lib/agent/model";
import { operationsByName } from "@/lib/agent/operations";
import { scriptedModel, type Script } from "@/lib/agent/testing/scripted-model";
import { holdPlanForApproval, turnView, writeApprovedPlan, type WriteContext } from "@/lib/agent/writes";
import { pendingView } from "./chains";
import { planPostUpdate } from "./plan";
import { findSiteForUser, getChangeSetItems, insertChangeItems, listItemsForToolCall } from "@/lib/db/queries";
import { useTestDatabase } from "@/lib/db/testing";
import { readItems } from "@/lib/sites/items";
import { siteClientFor } from "@/lib/sites/sites";
import { kickJobRunner, startBulkJob } from "@/lib/workflows/bulk-job";
import { setChatDepsForTests } from "@/lib/workflows/chat-turn";
import { setVerificationDepsForTests } from "@/lib/workflows/verify-change-set";
import { newUser } from "@/test/accounts";
import { type AgentTestSite, pairAgentSite, startAgentSite } from "@/test/agent-site";
import { approvalIds, changeParts, chatAs, outputs, type Turn } from "@/test/chat";
import { humanEditPost } from "@/test/changes";
import { call } from "@/test/http";
import { addLibraryFile, solidJpeg } from "@/test/media-library";
import { installMuPlugin, runAsAdmin } from "@/test/wordpress";

// Real WordPress, real PostgreSQL, a chat turn and its continuation per test: minutes on a loaded two-core machine.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 240_000 });
useTestDatabase();

const APP = "http://localhost:3000";
let wp: AgentTestSite;
let owner: { cookie: string; id: string };
let siteId: string;

beforeAll(async () => {
  wp = await startAgentSite();
  // Stands in for Yoast SEO (as lib/agent/operations/reach-operations.test.ts does), so update_seo is offered.
  installMuPlugin(wp.local.wpPath, "yoast-stand-in.php", "<?php\ndefine( 'WPSEO_VERSION', '24.0' );\n");
  wp.info = (await wp.admin.get<Record<string, unknown>>("/sitewright/v1/info")).data;
  owner = await newUser("chains");
  siteId = await pairAgentSite(wp, owner.id);
  setVerificationDepsForTests({ delays: [0] });
});

afterAll(async () => {
  setVerificationDepsForTests(undefined);
  setChatDepsForTests(undefined);
  setAgentModelForTests(undefined);
  await wp?.local.stop();
});

beforeEach(() => {
  resetBreakersForTests();
  setChatDepsForTests({
    siteClient: (site) => siteClientFor(site),
    limits: () => ({ maxSteps: 6, maxToolCalls: 12, maxTokens: 100_000, timeoutMs: 60_000 }),
  });
});

const php = <T>(code: string, args: unknown = null) => runAsAdmin<T>(wp.local.wpPath, code, args);

const insertPost = (type: string, title: string, content: string, extra: Record<string, unknown> = {}) =>
  php<number>(
    "echo json_encode(wp_insert_post(array_merge(array('post_type' => $args[0], 'post_status' => 'publish', 'post_title' => $args[1], 'post_content' => $args[2], 'post_excerpt' => 'Short'), $args[3])));",
    [type, title, content, extra],
  );

const chat = chatAs(() => ({ siteId, cookie: owner.cookie }));

/** Asks for `calls` in one model step; nothing is written: every call waits on its own approval card. */
async function ask(calls: Array<{ name: string; input: Record<string, unknown> }>, reply: string): Promise<Turn> {
  const script: Script = [{ toolCalls: calls }, { text: reply }];
  setAgentModelForTests(scriptedModel(script));
  const asked = await chat({ message: "Please make these changes." });
  expect(approvalIds(asked)).toHaveLength(calls.length);
  return asked;
}

/** The owner's answers to every card of the turn, in the order given (reversed: the later card first). */
const answer = (asked: Turn, order: "as shown" | "reversed" = "as shown") => {
  const ids = approvalIds(asked);
  return chat({
    conversationId: asked.conversationId,
    approvals: (order === "reversed" ? [...ids].reverse() : ids).map((id) => ({ id, approved: true })),
  });
};

const states = async (refs: string[]) =>
  Object.fromEntries((await readItems(wp.admin, refs)).map((item) => [item.ref, item.state]));

const changes = (path: "approve" | "undo", changeSetId: string, body: Record<string, unknown> = {}) =>
  call((path === "approve" ? approveRoute : undoRoute) as Parameters<typeof call>[0], {
    method: "POST",
    body,
    cookie: owner.cookie,
    headers: { origin: APP },
    params: { id: siteId, changeSetId },
  });

/** Undoes the whole set through the owner's route and checks every ref reads back exactly as before the turn. */
async function undoAsOne(changeSetId: string, before: Record<string, unknown>) {
  const undone = await changes("undo", changeSetId);
  expect(undone.status, undone.text).toBe(200);
  expect((await getChangeSetItems(changeSetId)).map((i) => i.status)).toEqual(expect.arrayContaining(["undone"]));
  expect((await getChangeSetItems(changeSetId)).every((i) => i.status === "undone")).toBe(true);
  expect(await states(Object.keys(before))).toEqual(before);
}

const PARAGRAPHS =
  "<!-- wp:paragraph -->\n<p>Bread</p>\n<!-- /wp:paragraph -->\n\n<!-- wp:paragraph -->\n<p>Cakes</p>\n<!-- /wp:paragraph -->";

describe("two changes to one page in one turn", () => {
  it("writes a title and then the content of one page on the click, and undoes them as one", async () => {
    const id = await insertPost("page", "Opening hours", PARAGRAPHS);
    const before = await states([`post:${id}`]);
    const content = "<!-- wp:paragraph -->\n<p>Open daily from 8</p>\n<!-- /wp:paragraph -->";
    const asked = await ask(
      [
        { name: "update_page", input: { type: "page", id, title: "Our hours" } },
        { name: "update_page", input: { type: "page", id, content } },
      ],
      "Both wait for you.",
    );
    // The second card shows only its own change, against the state the first one leaves.
    const [first, second] = changeParts(asked);
    expect(first!.items[0]).toMatchObject({ before: { title: "Opening hours" }, after: { title: "Our hours" } });
    expect(second!.items[0]).toMatchObject({ before: { content: PARAGRAPHS }, after: { content } });
    expect(second!.items[0]!.before).not.toHaveProperty("title");
    expect(await states([`post:${id}`])).toEqual(before);

    const done = await answer(asked, "reversed");
    expect(outputs(done).map((o) => o.ok)).toEqual([true, true]);
    expect((await states([`post:${id}`]))[`post:${id}`]).toMatchObject({ title: "Our hours", content });

    // The earlier change alone cannot be undone under the later one that rests on it.
    const items = await getChangeSetItems(first!.changeSetId);
    const alone = await changes("undo", first!.changeSetId, { itemIds: [items[0]!.id] });
    expect(alone.status, alone.text).toBe(409);
    expect(alone.json.error.code).toBe("not_applicable");
    expect(alone.json.error.message).toContain("undo them together");
    await undoAsOne(first!.changeSetId, before);
  });

  it("writes two block edits of one page in plan order, whichever card is approved first", async () => {
    const id = await insertPost("page", "Our range", PARAGRAPHS);
    const before = await states([`post:${id}`]);
    const replaceBlock = operationsByName.get("replace_block")!;
    const client = siteClientFor(await siteRow());
    const ctx: WriteContext = {
      scope: {
        userId: owner.id,
        siteId,
        conversationId: randomUUID(),
        turnId: randomUUID(),
        target: "live",
      },
      client,
      plans: new Map(),
      emitChange: () => {},
      approvedToolCalls: new Set(["call_first", "call_second"]),
    };
    const edits = [
      {
        call: "call_first",
        markup: "<!-- wp:paragraph -->\n<p>Sourdough bread</p>\n<!-- /wp:paragraph -->",
        position: "1",
      },
      {
        call: "call_second",
        markup: "<!-- wp:paragraph -->\n<p>Birthday cakes</p>\n<!-- /wp:paragraph -->",
        position: "2",
      },
    ];
    for (const edit of edits) {
      const input = replaceBlock.input.parse({ type: "page", id, position: edit.position, markup: edit.markup });
      const plan = await planCall(await turnView(ctx), replaceBlock, input, { target: "live" });
      await holdPlanForApproval(ctx, edit.call, plan);
    }
    // The second card first: it writes the first card's edit too, in order; the first card then answers the same.
    const second = await writeApprovedPlan(ctx, "call_second");
    const first = await writeApprovedPlan(ctx, "call_first");
    expect(second.summary).toBeTruthy();
    expect(first.summary).toBeTruthy();
    const content = (await states([`post:${id}`]))[`post:${id}`]!.content as string;
    expect(content).toContain("Sourdough bread");
    expect(content).toContain("Birthday cakes");
    expect(content).not.toContain("<p>Bread</p>");
    const items = await getChangeSetItems((await firstSetOf(ctx.scope, id))!);
    expect(items.map((i) => i.status)).toEqual(["applied", "applied"]);
    await undoAsOne(items[0]!.changeSetId, before);
  });
});

/** Every post holds its categories with News added, and the Bakery tag. */
function expectTermsAdded(before: Record<string, unknown>, now: Record<string, unknown>) {
  for (const [ref, state] of Object.entries(now)) {
    const categories = (before[ref] as { categories: string[] }).categories;
    expect(state).toMatchObject({ categories: [...new Set([...categories, "news"])].sort(), tags: ["bakery"] });
  }
}

describe("four changes to two posts in one turn", () => {
  it("writes categories and tags of two posts on one click on the review page, and undoes them as one", async () => {
    await php(
      "wp_insert_term('News', 'category', array('slug' => 'news')); wp_insert_term('Bakery', 'post_tag', array('slug' => 'bakery')); echo 1;",
    );
    const posts = [
      await insertPost("post", "Spring loaves", "<p>New</p>"),
      await insertPost("post", "Rye week", "<p>Rye</p>"),
    ];
    const refs = posts.map((id) => `post:${id}`);
    const before = await states(refs);
    const asked = await ask(
      [
        ...posts.map((id) => ({ name: "set_post_terms", input: { id, taxonomy: "category", add: ["news"] } })),
        ...posts.map((id) => ({ name: "set_post_terms", input: { id, taxonomy: "post_tag", add: ["bakery"] } })),
      ],
      "Four changes wait for you.",
    );
    const changeSetId = changeParts(asked)[0]!.changeSetId;
    // "Approve" on the review page: one click writes all four.
    const approved = await changes("approve", changeSetId);
    expect(approved.status, approved.text).toBe(200);
    expect(approved.json.changeSet.items.map((i: { status: string }) => i.status)).toEqual([
      "applied",
      "applied",
      "applied",
      "applied",
    ]);
    expectTermsAdded(before, await states(refs));
    await undoAsOne(changeSetId, before);
  });

  it("writes them all when the owner approves the four cards in the chat, in any order", async () => {
    const posts = [
      await insertPost("post", "Oat week", "<p>Oats</p>"),
      await insertPost("post", "Spelt week", "<p>Spelt</p>"),
    ];
    const refs = posts.map((id) => `post:${id}`);
    const before = await states(refs);
    const asked = await ask(
      [
        ...posts.map((id) => ({ name: "set_post_terms", input: { id, taxonomy: "category", add: ["news"] } })),
        ...posts.map((id) => ({ name: "set_post_terms", input: { id, taxonomy: "post_tag", add: ["bakery"] } })),
      ],
      "Four changes wait for you.",
    );
    const done = await answer(asked, "reversed");
    expect(outputs(done).map((o) => o.ok)).toEqual([true, true, true, true]);
    expectTermsAdded(before, await states(refs));
    await undoAsOne(changeParts(asked)[0]!.changeSetId, before);
  });
});

describe("other pairs on one item", () => {
  it("writes an SEO title, an excerpt, then an SEO description of one page on the click, and undoes them as one", async () => {
    const id = await insertPost("page", "Catering", PARAGRAPHS);
    const refs = [`post:${id}`, `seo:${id}`];
    const before = await states(refs);
    const asked = await ask(
      [
        { name: "update_seo", input: { type: "page", id, title: "Catering for events" } },
        { name: "update_page", input: { type: "page", id, excerpt: "Bread for every party" } },
        { name: "update_seo", input: { type: "page", id, description: "We bake for you." } },
      ],
      "All three wait for you.",
    );
    const done = await answer(asked, "reversed");
    expect(outputs(done).map((o) => o.ok)).toEqual([true, true, true]);
    const now = await states(refs);
    expect(now[`post:${id}`]).toMatchObject({ excerpt: "Bread for every party" });
    expect(now[`seo:${id}`]).toMatchObject({ title: "Catering for events", description: "We bake for you." });
    await undoAsOne(changeParts(asked)[0]!.changeSetId, before);
  });

  it("writes an image's caption and then its alt text, in the library and on the page showing it, and undoes them as one", async () => {
    const image = await addLibraryFile(wp.local.wpPath, {
      name: `loaf-${Date.now()}.jpg`,
      bytes: await solidJpeg(40, 30, "#a06030"),
      mime: "image/jpeg",
      title: "Loaf",
      sizes: false,
    });
    const url = await php<string>("echo json_encode(wp_get_attachment_url((int) $args[0]));", [image]);
    const page = await insertPost(
      "page",
      "Gallery",
      `<!-- wp:image {"id":${image}} -->\n<figure class="wp-block-image"><img src="${url}" alt="" class="wp-image-${image}"/></figure>\n<!-- /wp:image -->`,
    );
    const refs = [`post:${image}`, `post:${page}`];
    const before = await states(refs);
    const asked = await ask(
      [
        { name: "update_media", input: { id: image, caption: "Our daily loaf" } },
        { name: "update_media", input: { id: image, alt: "A round brown loaf" } },
      ],
      "Both wait for you.",
    );
    const changeSetId = changeParts(asked)[0]!.changeSetId;
    const approved = await changes("approve", changeSetId);
    expect(approved.status, approved.text).toBe(200);
    const now = await states(refs);
    expect(now[`post:${image}`]).toMatchObject({ excerpt: "Our daily loaf", alt: "A round brown loaf" });
    expect(now[`post:${page}`]!.content).toContain('alt="A round brown loaf"');
    expect(now[`post:${page}`]!.content).toContain("Our daily loaf");
    await undoAsOne(changeSetId, before);
  });
});

describe("choosing items on the review page", () => {
  it("refuses a later change chosen without the earlier one it rests on, and writes both when both are chosen", async () => {
    const tag = `chains-${Date.now()}`;
    await insertPost("page", `${tag} hours`, "<p>Call 555-0100</p>");
    const job = await startBulkJob({
      userId: owner.id,
      siteId,
      conversationId: randomUUID(),
      client: wp.admin,
      spec: {
        description: "pages with the old number",
        selection: { type: "page", search: tag, status: "publish" },
        change: { kind: "replace", field: "content", find: "555-0100", replace: "555-0199" },
      },
    });
    await kickJobRunner();
    // Two changes to another page wait in the same queue, the second planned on top of the first.
    const id = await insertPost("page", "Deliveries", PARAGRAPHS);
    const before = await states([`post:${id}`]);
    const queued = (plan: ReturnType<typeof planPostUpdate>) =>
      insertChangeItems([
        {
          ...plan,
          id: randomUUID(),
          changeSetId: job.changeSetId,
          toolCallId: null,
          status: "pending",
          now: new Date(),
        },
      ]);
    const [title] = await queued(
      planPostUpdate((await readItems(wp.admin, [`post:${id}`]))[0]!, { title: "Delivery" }, "Renamed."),
    );
    const [current] = await readItems(pendingView(wp.admin, [title!]), [`post:${id}`]);
    const [excerpt] = await queued(planPostUpdate(current!, { excerpt: "We deliver" }, "New excerpt."));
    expect(excerpt!.change.expect).toBe(`pending:${title!.id}`);

    const apply = (itemIds: string[]) =>
      call(applyRoute as Parameters<typeof call>[0], {
        method: "POST",
        body: { itemIds },
        cookie: owner.cookie,
        headers: { origin: APP },
        params: { id: siteId, changeSetId: job.changeSetId },
      });
    const alone = await apply([excerpt!.id]);
    expect(alone.status, alone.text).toBe(409);
    expect(alone.json.error).toMatchObject({
      code: "not_applicable",
      details: { items: [{ id: excerpt!.id, restsOn: title!.id }] },
    });
    expect(alone.json.error.message).toContain("still waits for approval");
    expect(await states([`post:${id}`])).toEqual(before);

    const both = await apply([title!.id, excerpt!.id]);
    expect(both.status, both.text).toBe(200);
    expect((await states([`post:${id}`]))[`post:${id}`]).toMatchObject({ title: "Delivery", excerpt: "We deliver" });
  });
});

describe("a person's edit between the plan and the click", () => {
  it("is never overwritten: the chat's cards and the review page both refuse, and nothing of the page is written", async () => {
    for (const door of ["chat", "review page"] as const) {
      const id = await insertPost("page", `Prices (${door})`, PARAGRAPHS);
      const asked = await ask(
        [
          { name: "update_page", input: { type: "page", id, title: "Our prices" } },
          { name: "update_page", input: { type: "page", id, excerpt: "What things cost" } },
        ],
        "Both wait for you.",
      );
      await humanEditPost(wp.local.wpPath, id, { content: "<p>Edited by hand</p>" });
      const edited = await states([`post:${id}`]);
      if (door === "chat") {
        const done = await answer(asked, "reversed");
        expect(outputs(done).map((o) => [o.ok, o.code])).toEqual([
          [false, "sitewright_stale"],
          [false, "sitewright_stale"],
        ]);
      } else {
        const refused = await changes("approve", changeParts(asked)[0]!.changeSetId);
        expect(refused.status, refused.text).toBe(409);
        expect(refused.json.error.code).toBe("drifted");
      }
      expect(await states([`post:${id}`])).toEqual(edited);
      const items = await getChangeSetItems(changeParts(asked)[0]!.changeSetId);
      expect(items.every((i) => i.status === "failed")).toBe(true);
    }
  });
});

const siteRow = async () => (await findSiteForUser({ userId: owner.id, siteId }))!;

/** The change set a direct write context's turn recorded its items in. */
async function firstSetOf(
  scope: { conversationId: string; turnId: string },
  postId: number,
): Promise<string | undefined> {
  const items = await listItemsForToolCall({ ...scope, toolCallId: "call_first" });
  return items.find((i) => i.ref === `post:${postId}`)?.changeSetId;
}
