/**
 * Reviews show what they apply (issue 35, items 4 and 5), in Chromium: a rehearsal of a design change shows each
 * colour before and after (swatches and values, as the chat's card does); a rehearsal whose sandbox is gone says so
 * in words and offers Discard instead of Apply, with no frame of the sandbox (never raw JSON in the page); a
 * change made on the live site (an MCP client's proposal) never mentions a sandbox, and its page frame shows the
 * live page. Each state passes axe.
 */
import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";
import { ensureChangeSet, insertChangeItems } from "../lib/db/queries";
import { checkState } from "./support/checks";
import { connectSite, signUp, useAppDatabase } from "./support/owner";
import { e2eState } from "./support/state";

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
  test.setTimeout(180_000);
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
  await expect(frame.locator("body")).toContainText("Open 8 to 18", { timeout: 30_000 });
  await checkState(page, "review-live-pending", { frames: false });

  await page.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByTestId("review-status")).toHaveText("Applied");
  await expect(page.locator("main")).not.toContainText(/sandbox/i);
});

test("two changes to one page in one turn: one row on the review page, before the first to after the last", async ({
  page,
}) => {
  test.setTimeout(180_000);
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
