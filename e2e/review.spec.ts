/**
 * Reviews show what they apply (issue 35, items 4 and 5), in Chromium: a rehearsal of a design change shows each
 * colour before and after (swatches and values, as the chat's card does); a rehearsal whose sandbox is gone says so
 * in words and offers Discard instead of Apply, with no frame of the sandbox (never raw JSON in the page); a
 * change made on the live site (an MCP client's proposal) never mentions a sandbox, and its page frame shows the
 * live page. Each state passes axe. Several changes to one item are one row (docs/change-sets.md, "Several changes to
 * one item"): on the review page, and in a job's queue, where the row is chosen as a whole and a change resting on a
 * rejected one is named and cannot be approved.
 */
import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";
import { pendingView } from "../lib/changes/chains";
import { planPostUpdate } from "../lib/changes/plan";
import { ensureChangeSet, getChangeSetItems, insertChangeItems, transitionChangeItems } from "../lib/db/queries";
import { readItems } from "../lib/sites/items";
import type { SiteClient } from "../lib/sites/types";
import { checkState } from "./support/checks";
import { connectSite, signUp, useAppDatabase } from "./support/owner";
import { replaceJobInQueue } from "./support/jobs";
import { e2eState } from "./support/state";
import { asServerDrewIt } from "./support/server-html";
import { allowTest, scaled } from "./support/waits";

useAppDatabase();

/** A design rehearsal as the chat leaves it, in a sandbox that has since been removed (none by this id exists). */
async function designRehearsal(userId: string, siteId: string) {
  const at = new Date();
  const set = await ensureChangeSet({
    id: randomUUID(),
    userId,
    siteId,
    conversationId: randomUUID(),
    turnId: randomUUID(),
    target: "sandbox",
    sandboxId: randomUUID(),
    now: at,
  });
  await insertChangeItems([
    {
      id: randomUUID(),
      changeSetId: set.id,
      kind: "global_styles",
      ref: "global_styles:7",
      action: "update",
      title: "Global styles",
      summary: "Changed the global styles (colours primary).",
      before: { "Colour Primary": "#9dff20" },
      after: { "Colour Primary": "#c0ffee" },
      visible: true,
      change: { ref: "global_styles:7", expect: "v1", action: "update", fields: {} },
      beforeState: {},
      afterState: {},
      versionRead: "v1",
      status: "applied",
      now: at,
    },
  ]);
  return set;
}

test("a design rehearsal whose sandbox is gone: colours before and after, said in words, no Apply", async ({
  page,
}) => {
  const { appUrl } = e2eState();
  const userId = await signUp(page, "review-gone");
  const { siteId } = await connectSite(userId);
  const set = await designRehearsal(userId, siteId);

  await page.goto(`${appUrl}/sites/${siteId}/review/${set.id}`);
  const diff = page.getByTestId("change-diff");
  await expect(diff).toContainText("Colour Primary");
  await expect(diff.locator("del")).toContainText("#9dff20");
  await expect(diff.locator("ins")).toContainText("#c0ffee");
  const swatches = diff.getByTestId("swatch");
  await expect(swatches).toHaveCount(2);
  expect(await swatches.evaluateAll((all) => all.map((s) => getComputedStyle(s).backgroundColor))).toEqual([
    "rgb(157, 255, 32)",
    "rgb(192, 255, 238)",
  ]);

  const status = page.getByTestId("change-set-status");
  await expect(status).toHaveText(/^The sandbox these changes were tried in is gone/);
  await expect(page.getByRole("button", { name: /Apply/ })).toHaveCount(0);
  await expect(page.getByText("No preview: the sandbox these changes were tried in is gone.")).toBeVisible();
  await expect(page.locator("iframe")).toHaveCount(1); // the live home page only: no frame of a gone sandbox
  await expect(page.locator("body")).not.toContainText('{"error"');
  await checkState(page, "review-sandbox-gone", { frames: false });

  await page.getByRole("button", { name: "Discard" }).click();
  await expect(page.getByTestId("review-outcome")).toHaveText("Discarded: nothing was changed on your live site.");
  await expect(page.getByTestId("change-set-status")).toHaveCount(0);
});

test("a live change proposed over MCP: the live page shown, no sandbox mentioned", async ({ page }) => {
  allowTest(180_000);
  const { appUrl } = e2eState();
  const userId = await signUp(page, "review-live");
  const { siteId, admin } = await connectSite(userId);
  const title = `Opening hours ${Date.now()}`;
  const { data: created } = await admin.post<{ id: number }>("/wp/v2/pages", {
    title,
    content: "<!-- wp:paragraph --><p>Open 8 to 18</p><!-- /wp:paragraph -->",
    status: "publish",
  });
  await page.goto(`${appUrl}/sites/${siteId}/chat?new=1`);
  await page.getByRole("textbox", { name: "Message" }).fill(`Rename page ${created.id} to "Summer opening hours"`);
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.locator('[data-testid="tool-card"][data-state="approval"]').last()).toBeVisible();
  const listed = await (await page.request.get(`${appUrl}/sites/${siteId}/changes`)).json();
  const pending = listed.changeSets.find((set: { status: string }) => set.status === "pending");

  await page.goto(`${appUrl}/sites/${siteId}/review/${pending.id}`);
  await expect(page.getByTestId("change-diff")).toContainText("Summer opening hours");
  await expect(page.getByText("On your live site now")).toBeVisible();
  await expect(page.locator("main")).not.toContainText(/sandbox/i);
  // The frame shows the live page itself, not a blank box.
  const frame = page.frameLocator('iframe[title$="on the live site"]');
  await expect(frame.locator("body")).toContainText("Open 8 to 18", { timeout: scaled(30_000) });
  await checkState(page, "review-live-pending", { frames: false });
  // As the server drew it, before its bundles ran: Approve and Deny wait (app/use-hydrated.ts).
  await asServerDrewIt(page, page.url(), async (drawn) => {
    await expect(drawn.getByRole("button", { name: "Approve" })).toBeDisabled();
    await expect(drawn.getByRole("button", { name: "Deny" })).toBeDisabled();
  });

  await page.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByTestId("review-status")).toHaveText("Applied");
  await expect(page.locator("main")).not.toContainText(/sandbox/i);
});

test("two changes to one page in one turn: one row on the review page, before the first to after the last", async ({
  page,
}) => {
  allowTest(180_000);
  const { appUrl } = e2eState();
  const userId = await signUp(page, "review-chain");
  const { siteId, admin } = await connectSite(userId);
  const title = `Bakery hours ${Date.now()}`;
  const { data: created } = await admin.post<{ id: number }>("/wp/v2/pages", {
    title,
    content: "<!-- wp:paragraph --><p>Open 8 to 18</p><!-- /wp:paragraph -->",
    status: "publish",
  });
  const content = "<!-- wp:paragraph --><p>Open every day from 7</p><!-- /wp:paragraph -->";
  const calls = [
    { name: "update_page", arguments: { type: "page", id: created.id, title: `${title} (summer)` } },
    { name: "update_page", arguments: { type: "page", id: created.id, content } },
  ];
  await page.goto(`${appUrl}/sites/${siteId}/chat?new=1`);
  await page.getByRole("textbox", { name: "Message" }).fill(`calls ${JSON.stringify(calls)}`);
  await page.getByRole("button", { name: "Send" }).click();
  const cards = page.locator('[data-testid="tool-card"][data-state="approval"]');
  await expect(cards).toHaveCount(2);
  // The chat's second card shows only its own change and says what it rests on.
  await expect(cards.nth(1).getByTestId("rests-on")).toContainText("planned on top of an earlier change");
  await expect(cards.nth(0).getByTestId("rests-on")).toHaveCount(0);
  const listed = await (await page.request.get(`${appUrl}/sites/${siteId}/changes`)).json();
  const pending = listed.changeSets.find((set: { status: string }) => set.status === "pending");

  await page.goto(`${appUrl}/sites/${siteId}/review/${pending.id}`);
  const rows = page.getByTestId("diff-row");
  await expect(rows).toHaveCount(1);
  const row = rows.first();
  await expect(row).toHaveAttribute("data-items", "2");
  // Before the first change and after the last, every field either touches.
  await expect(row.locator("dd del").first()).toHaveText(title);
  await expect(row.locator("dd ins").first()).toHaveText(`${title} (summer)`);
  await expect(row.getByTestId("block-diff")).toContainText("Open 8 to 18");
  await expect(row.getByTestId("block-diff")).toContainText("Open every day from 7");
  const steps = row.getByTestId("combined-steps");
  await expect(steps).toContainText("2 changes to");
  await expect(steps).toContainText("Approve writes them together, in this order");
  await expect(steps.locator("li")).toHaveCount(2);
  await checkState(page, "review-chain-pending", { frames: false });

  await page.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByTestId("review-status")).toHaveText("Applied");
  await expect(steps.locator('li[data-status="applied"]')).toHaveCount(2);
  const { data: now } = await admin.get<{ title: { raw: string }; content: { raw: string } }>(
    `/wp/v2/pages/${created.id}`,
    { context: "edit" },
  );
  expect(now.title.raw).toBe(`${title} (summer)`);
  expect(now.content.raw).toBe(content);
});

/** Two changes to one page queued in a job's change set, the second planned on top of the first (as a chain is). */
async function queueChain(admin: SiteClient, changeSetId: string, pageId: number, tag: string) {
  const hold = async (plan: ReturnType<typeof planPostUpdate>) =>
    (
      await insertChangeItems([
        { ...plan, id: randomUUID(), changeSetId, toolCallId: null, status: "pending" as const, now: new Date() },
      ])
    )[0]!;
  const [page] = await readItems(admin, [`post:${pageId}`]);
  const title = await hold(planPostUpdate(page!, { title: `${tag} renamed` }, "Renamed the page."));
  const [onTop] = await readItems(pendingView(admin, [title]), [`post:${pageId}`]);
  const excerpt = await hold(planPostUpdate(onTop!, { excerpt: `${tag} excerpt` }, "Wrote an excerpt."));
  return { title, excerpt };
}

test("a job's queue: two changes to one page are one row, chosen together; one resting on a rejected change is named", async ({
  page,
}) => {
  allowTest(240_000);
  const { siteId, admin } = await connectSite(await signUp(page, "review-queue-chain"));
  const tag = `queuechain${Date.now()}`;
  const created = async (title: string) =>
    (
      await admin.post<{ id: number }>("/wp/v2/pages", {
        title,
        content: "<!-- wp:paragraph --><p>Call us on 555-0100.</p><!-- /wp:paragraph -->",
        status: "publish",
      })
    ).data.id;
  await created(`${tag} hours`);
  const { changeSetId } = await replaceJobInQueue(page, siteId, `${tag} hours`);
  const [kept, stranded] = [await created(`${tag} deliveries`), await created(`${tag} catering`)];
  const first = await queueChain(admin, changeSetId, kept, `${tag} deliveries`);
  const second = await queueChain(admin, changeSetId, stranded, `${tag} catering`);
  // The owner (elsewhere) rejected the catering page's first change: the second has nothing to rest on.
  await transitionChangeItems({ ids: [second.title.id], from: "pending", to: "denied", now: new Date() });

  await page.reload();
  const rows = page.getByTestId("queue-item");
  await expect(rows).toHaveCount(3);
  const chain = page.locator(`[data-testid="queue-item"][data-key="${first.title.id}"]`);
  await expect(chain.getByTestId("combined-steps").locator("li")).toHaveCount(2);
  await expect(chain.locator("dd del").first()).toHaveText(`${tag} deliveries`);
  await expect(chain.locator("dd ins").first()).toHaveText(`${tag} deliveries renamed`);
  const broken = page.locator(`[data-testid="queue-item"][data-key="${second.title.id}"]`);
  await expect(broken.getByTestId("stranded")).toContainText(
    "“Wrote an excerpt.” cannot be approved: it was planned on top of “Renamed the page.”, which was rejected.",
  );
  await checkState(page, "queue-chain", { frames: false });

  // The stranded change can only be rejected: choosing it offers no Approve.
  await broken.getByRole("checkbox").check();
  await expect(page.getByRole("button", { name: "Approve selected (0)" })).toBeDisabled();
  await page.getByRole("button", { name: "Reject selected (1)" }).click();
  await expect(page.getByTestId("queue-outcome")).toContainText("Rejected 1.");

  // The chain's one checkbox chooses both of its changes; one click writes them in order.
  await chain.getByRole("checkbox").check();
  await page.getByRole("button", { name: "Approve selected (2)" }).click();
  await expect(page.getByTestId("queue-outcome")).toContainText("Approved 2.");
  const { data: written } = await admin.get<{ title: { raw: string }; excerpt: { raw: string } }>(
    `/wp/v2/pages/${kept}`,
    { context: "edit" },
  );
  expect(written.title.raw).toBe(`${tag} deliveries renamed`);
  expect(written.excerpt.raw).toBe(`${tag} deliveries excerpt`);
  const items = await getChangeSetItems(changeSetId);
  expect(items.find((item) => item.id === first.excerpt.id)?.status).toBe("applied");
  expect(items.find((item) => item.id === second.excerpt.id)?.status).toBe("denied");
});
