/**
 * The review page's data (lib/workflows/review.ts) for a set with several changes to one item, on the real WordPress
 * with our plugin and PostgreSQL (docs/change-sets.md, "Several changes to one item"): the page's diff has one row
 * per target, the chained page's row going from the page before the first change to the page after the last, every
 * field either touches, and naming the changes it stands for in plan order; Approve writes the row as drawn.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { approvePendingChangeSet } from "@/lib/changes/approve";
import { pendingView } from "@/lib/changes/chains";
import { planPostUpdate } from "@/lib/changes/plan";
import { ensureChangeSet, insertChangeItems } from "@/lib/db/queries";
import { useTestDatabase } from "@/lib/db/testing";
import { readItems } from "@/lib/sites/items";
import type { SiteClient } from "@/lib/sites/types";
import { newUser } from "@/test/accounts";
import { type AgentTestSite, pairAgentSite, startAgentSite } from "@/test/agent-site";
import { runAsAdmin } from "@/test/wordpress";
import { loadRehearsalReview } from "./review";

vi.setConfig({ testTimeout: 180_000 });
useTestDatabase();

let wp: AgentTestSite;

beforeAll(async () => {
  wp = await startAgentSite();
}, 180_000);

afterAll(async () => {
  await wp?.local.stop();
});

const PARAGRAPH = "<!-- wp:paragraph -->\n<p>Bread daily</p>\n<!-- /wp:paragraph -->";

const insertPage = (title: string) =>
  runAsAdmin<number>(
    wp.local.wpPath,
    "echo json_encode(wp_insert_post(array('post_type' => 'page', 'post_status' => 'publish', 'post_title' => $args[0], 'post_content' => $args[1], 'post_excerpt' => 'Short')));",
    [title, PARAGRAPH],
  );

it("shows a page's chained changes as one row, before the first to after the last, and Approve writes them", async () => {
  const owner = await newUser("review-rows");
  const siteId = await pairAgentSite(wp, owner.id);
  const [hours, prices] = [await insertPage("Opening hours"), await insertPage("Prices")];
  const set = await ensureChangeSet({
    id: randomUUID(),
    userId: owner.id,
    siteId,
    conversationId: randomUUID(),
    turnId: randomUUID(),
    target: "live",
    now: new Date(),
  });
  const hold = async (plan: ReturnType<typeof planPostUpdate>) =>
    (
      await insertChangeItems([
        { ...plan, id: randomUUID(), changeSetId: set.id, toolCallId: null, status: "pending", now: new Date() },
      ])
    )[0]!;
  // A title, then another page's excerpt, then the first page's content and its title again, as a turn plans them:
  // each later change to "Opening hours" is planned on the state the earlier ones leave.
  const read = async (client: SiteClient = wp.admin, id = hours) => (await readItems(client, [`post:${id}`]))[0]!;
  const title = await hold(planPostUpdate(await read(), { title: "Our hours" }, "Renamed the page."));
  const excerpt = await hold(planPostUpdate(await read(wp.admin, prices), { excerpt: "What it costs" }, "Excerpt."));
  const content = "<!-- wp:paragraph -->\n<p>Open from 8</p>\n<!-- /wp:paragraph -->";
  const body = await hold(
    planPostUpdate(await read(pendingView(wp.admin, [title])), { content, title: "Hours" }, "New text, shorter title."),
  );
  expect(body.change.expect).toBe(`pending:${title.id}`);

  const drawn = await loadRehearsalReview({ userId: owner.id, siteId, changeSetId: set.id });
  expect(drawn.changeSet.items).toHaveLength(3);
  expect(drawn.rows.map((row) => row.itemIds)).toEqual([[title.id, body.id], [excerpt.id]]);
  const [chain, alone] = drawn.rows;
  expect(chain).toMatchObject({
    targetId: `post:${hours}`,
    title: "Opening hours",
    action: "update",
    status: "pending",
    before: { title: "Opening hours", content: PARAGRAPH },
    after: { title: "Hours", content },
  });
  expect(chain!.steps).toEqual([
    { id: title.id, summary: "Renamed the page.", status: "pending", action: "update" },
    { id: body.id, summary: "New text, shorter title.", status: "pending", action: "update", restsOn: title.id },
  ]);
  expect(alone).toMatchObject({ before: { excerpt: "Short" }, after: { excerpt: "What it costs" }, steps: [{}] });

  await approvePendingChangeSet({ userId: owner.id, siteId, changeSetId: set.id }, wp.admin);
  const written = await loadRehearsalReview({ userId: owner.id, siteId, changeSetId: set.id });
  expect(written.rows.map((row) => row.status)).toEqual(["applied", "applied"]);
  expect((await read()).state).toMatchObject({ title: "Hours", content });
});

it("approves only what the page drew: a change planned after the page was drawn keeps waiting", async () => {
  const owner = await newUser("review-upto");
  const siteId = await pairAgentSite(wp, owner.id);
  const [shown, later] = [await insertPage("Shown"), await insertPage("Later")];
  const set = await ensureChangeSet({
    id: randomUUID(),
    userId: owner.id,
    siteId,
    conversationId: randomUUID(),
    turnId: randomUUID(),
    target: "live",
    now: new Date(),
  });
  const hold = async (id: number, title: string) => {
    const [current] = await readItems(wp.admin, [`post:${id}`]);
    const plan = planPostUpdate(current!, { title }, "Renamed.");
    return (
      await insertChangeItems([
        { ...plan, id: randomUUID(), changeSetId: set.id, toolCallId: null, status: "pending", now: new Date() },
      ])
    )[0]!;
  };
  await hold(shown, "Shown (new)");
  const drawn = await loadRehearsalReview({ userId: owner.id, siteId, changeSetId: set.id });
  const added = await hold(later, "Later (new)");

  const upTo = drawn.changeSet.items.at(-1)!.id;
  const approved = await approvePendingChangeSet({ userId: owner.id, siteId, changeSetId: set.id, upTo }, wp.admin);
  expect(approved.items.map((item) => [item.title, item.status])).toEqual([
    ["Shown", "applied"],
    ["Later", "pending"],
  ]);
  expect(approved.status).toBe("pending");
  const titles = await readItems(wp.admin, [`post:${shown}`, `post:${later}`]);
  expect(titles.map((item) => item.title)).toEqual(["Shown (new)", "Later"]);
  expect(added.status).toBe("pending");
});
