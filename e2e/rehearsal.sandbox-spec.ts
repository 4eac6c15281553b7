/**
 * Issue 13's "Done when", in Chromium with only the app's URL: ask for a change in sandbox mode → the live site is
 * unchanged → open the preview and see the change → apply → the live site changed → undo → the live site as
 * before; and a person's edit on the live site in between makes apply refuse, naming the page. Real WordPress
 * over https as the live site, real Podman sandboxes, the production build.
 */
import { expect, test } from "@playwright/test";
import { humanEditPost } from "../test/changes";
import { ALL_SCOPES, connectSite, expectFrameToShow, signUp, useAppDatabase } from "./support/owner";
import { expectAccessible } from "./support/checks";
import { e2eState } from "./support/state";
import { scaled } from "./support/waits";

const para = (text: string) => `<!-- wp:paragraph --><p>${text}</p><!-- /wp:paragraph -->`;
useAppDatabase();

test("rehearses a change in a sandbox, previews it, applies it to the live site, and undoes it", async ({
  page,
  context,
  playwright,
}) => {
  const { appUrl } = e2eState();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));

  const { siteId, admin } = await connectSite(await signUp(page, "rehearsal"), ALL_SCOPES);
  const title = `Opening hours ${Date.now()}`;
  const { data: created } = await admin.post<{ id: number }>("/wp/v2/pages", {
    title,
    status: "publish",
    content: para("Open 8–18"),
  });
  const liveContent = async () =>
    (await admin.get<{ content: { raw: string } }>(`/wp/v2/pages/${created.id}`, { context: "edit" })).data.content.raw;

  // Sandbox mode is the default when sandboxes are on, and the chat says so.
  await page.goto(`${appUrl}/sites/${siteId}/chat`);
  await expect(page.getByRole("radio", { name: /Sandbox/ })).toBeChecked();
  await page.getByLabel("Message").fill(`Change the text of "${title}" to "Open 7–19, also on Sundays"`);
  await page.getByRole("button", { name: "Send" }).click();
  const rehearsed = page.getByTestId("rehearsal-link");
  await expect(rehearsed).toBeVisible({ timeout: scaled(60_000) });
  expect(await liveContent()).toBe(para("Open 8–18"));

  // The review: the live page before, the sandbox page after, through the app's own URL.
  await rehearsed.getByRole("link", { name: "Review and apply" }).click();
  await expect(page.getByTestId("change-set-status")).toHaveAttribute("data-status", "pending");
  await expectFrameToShow(page, `${title} in the sandbox`, "Open 7–19, also on Sundays");
  const previewHref = (await page.getByTestId("preview-link").getAttribute("href"))!;
  expect(previewHref.startsWith(`${appUrl}/preview/`)).toBe(true);
  // Over HTTP against the built app: the owner's answer carries no container address; anyone else gets 404.
  const answer = await page.request.get(previewHref);
  expect(answer.status()).toBe(200);
  expect(JSON.stringify(answer.headersArray())).not.toMatch(/127\.0\.0\.1/);
  expect(await answer.text()).not.toMatch(/127\.0\.0\.1:\d+/);
  const stranger = await playwright.request.newContext({ ignoreHTTPSErrors: true });
  expect((await stranger.get(previewHref)).status()).toBe(404);
  await stranger.dispose();

  // Open the preview itself: the change is there, every link stays inside it, no container address shows.
  const failed: string[] = [];
  context.on("response", (response) => {
    if (response.url().startsWith(`${appUrl}/preview/`) && response.status() >= 400)
      failed.push(`${response.status()} ${response.url()}`);
  });
  const [preview] = await Promise.all([context.waitForEvent("page"), page.getByTestId("preview-link").click()]);
  await preview.waitForLoadState("networkidle");
  // Its styles, scripts and fonts load too (the page runs in an opaque origin: they are asked for cross-site).
  expect(failed).toEqual([]);
  await expect(preview.getByText("Open 7–19, also on Sundays")).toBeVisible();
  expect(preview.url().startsWith(`${appUrl}/preview/`)).toBe(true);
  const html = await preview.content();
  expect(html).not.toMatch(/127\.0\.0\.1:\d+/);
  const hrefs = await preview
    .locator("a[href]")
    .evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).href));
  const appHost = new URL(appUrl).host;
  for (const href of hrefs.filter((h) => h.startsWith("http"))) {
    const url = new URL(href);
    expect(url.hostname).not.toBe("127.0.0.1");
    if (url.host === appHost) expect(url.pathname.startsWith("/preview/")).toBe(true);
  }
  await page.screenshot({ path: ".cache/screens/rehearsal-review.png", fullPage: true });
  await preview.close();

  // Apply: the live site changes; undo: the live site as before.
  await page.getByRole("button", { name: "Apply to live site" }).click();
  await expect(page.getByTestId("review-outcome")).toContainText("Applied");
  await expectAccessible(page, "rehearsal-applied", { frames: false }); // the outcome line's contrast
  expect(await liveContent()).toBe(para("Open 7–19, also on Sundays"));
  await page.getByRole("button", { name: "Undo on live site" }).click();
  await expect(page.getByTestId("review-outcome")).toContainText("Undone");
  expect(await liveContent()).toBe(para("Open 8–18"));

  // The sandbox panel: the rehearsal's copy is listed; its wp-admin opens signed in, through the preview, and says
  // it is a sandbox with its expiry; a blank sandbox starts and is deleted.
  await page.goto(`${appUrl}/sandboxes`);
  const copy = page.getByTestId("sandbox").filter({ hasText: "Copy of" });
  await expect(copy).toHaveCount(1);
  await expect(copy).toContainText("minutes left");
  await copy.getByText("What was copied").click();
  await expect(copy).toContainText(title);
  const [wpAdmin] = await Promise.all([
    context.waitForEvent("page"),
    copy.getByRole("button", { name: "Sign in to its wp-admin" }).click(),
  ]);
  await wpAdmin.waitForLoadState();
  expect(wpAdmin.url().startsWith(`${appUrl}/preview/`)).toBe(true);
  expect(new URL(wpAdmin.url()).pathname).toMatch(/^\/preview\/[0-9a-f-]{36}\/wp-admin\/$/);
  await expect(wpAdmin.locator("#wp-admin-bar-sitewright-sandbox")).toContainText("Sitewright sandbox · expires");
  await expect(wpAdmin.locator("#sitewright-sandbox-notice")).toContainText("It is deleted in");
  expect(await wpAdmin.content()).not.toMatch(/127\.0\.0\.1:\d+/);
  await wpAdmin.screenshot({ path: ".cache/screens/sandbox-wp-admin.png" });
  await wpAdmin.close();

  await page.getByLabel("Start from").selectOption({ label: "A blank WordPress" });
  await page.getByRole("button", { name: "Start a sandbox" }).click();
  const blank = page.getByTestId("sandbox").filter({ hasText: "Blank WordPress" });
  await expect(blank).toHaveCount(1, { timeout: scaled(60_000) });
  await page.screenshot({ path: ".cache/screens/sandbox-panel.png", fullPage: true });
  await blank.getByRole("button", { name: "Delete" }).click();
  await expect(blank).toHaveCount(0);
  expect(errors).toEqual([]);
});

test("refuses to apply over a person's edit on the live site, naming the page; discard leaves live as the person left it", async ({
  page,
}) => {
  const { appUrl, site } = e2eState();
  const { siteId, admin } = await connectSite(await signUp(page, "drift"), ALL_SCOPES);
  const title = `Prices ${Date.now()}`;
  const { data: created } = await admin.post<{ id: number }>("/wp/v2/pages", {
    title,
    status: "publish",
    content: para("Bread 3 €"),
  });
  const liveContent = async () =>
    (await admin.get<{ content: { raw: string } }>(`/wp/v2/pages/${created.id}`, { context: "edit" })).data.content.raw;

  await page.goto(`${appUrl}/sites/${siteId}/chat`);
  await page.getByLabel("Message").fill(`Change the text of "${title}" to "Bread 4 €"`);
  await page.getByRole("button", { name: "Send" }).click();
  await page
    .getByTestId("rehearsal-link")
    .getByRole("link", { name: "Review and apply" })
    .click({ timeout: scaled(60_000) });
  await expect(page.getByTestId("change-set-status")).toHaveAttribute("data-status", "pending");

  // A person edits the page on the live site meanwhile (as wp-admin would, through WordPress itself).
  await humanEditPost(site.wpPath, created.id, { content: para("Bread 3.50 € (Ana)") });
  await page.getByRole("button", { name: "Apply to live site" }).click();
  const refusal = page.getByTestId("review-outcome");
  await expect(refusal).toContainText("Nothing was applied");
  await expect(refusal).toContainText(`"${title}"`);
  expect(await liveContent()).toBe(para("Bread 3.50 € (Ana)"));
  await page.screenshot({ path: ".cache/screens/rehearsal-drifted.png", fullPage: true });

  await page.getByRole("button", { name: "Discard" }).click();
  await expect(page.getByTestId("review-outcome")).toContainText("Discarded");
  await expectAccessible(page, "rehearsal-discarded", { frames: false });
  // The outcome is the page's one sentence about the set: the "not applied yet" line is gone.
  await expect(page.getByTestId("change-set-status")).toHaveCount(0);
  expect(await liveContent()).toBe(para("Bread 3.50 € (Ana)"));
});

test("finds a draft the first copy did not bring, rehearses the edit on it, and applies it as a draft", async ({
  page,
}) => {
  const { appUrl } = e2eState();
  const { siteId, admin } = await connectSite(await signUp(page, "pull"), ALL_SCOPES);
  // A draft: the first copy brings published pages only, so the agent's search must bring it in.
  const title = `Summer sale ${Date.now()}`;
  const { data: draft } = await admin.post<{ id: number }>("/wp/v2/pages", {
    title,
    status: "draft",
    content: para("Twenty percent off"),
  });
  const live = async () =>
    (await admin.get<{ status: string; content: { raw: string } }>(`/wp/v2/pages/${draft.id}`, { context: "edit" }))
      .data;

  await page.goto(`${appUrl}/sites/${siteId}/chat`);
  await page.getByLabel("Message").fill(`Change the text of "${title}" to "Thirty percent off"`);
  await page.getByRole("button", { name: "Send" }).click();
  const rehearsed = page.getByTestId("rehearsal-link");
  await expect(rehearsed).toBeVisible({ timeout: scaled(60_000) });
  await expect(page.getByText(`Changed the text of “${title}”.`)).toBeVisible();
  expect((await live()).content.raw).toBe(para("Twenty percent off"));

  await rehearsed.getByRole("link", { name: "Review and apply" }).click();
  await expect(page.getByTestId("change-set-status")).toHaveAttribute("data-status", "pending");
  await expect(page.getByText(title).first()).toBeVisible();
  await page.getByRole("button", { name: "Apply to live site" }).click();
  await expect(page.getByTestId("review-outcome")).toContainText("Applied");
  expect(await live()).toMatchObject({ status: "draft", content: { raw: para("Thirty percent off") } });
});

test("applies some of a rehearsal's changes first, then the rest", async ({ page }) => {
  const { appUrl } = e2eState();
  const { siteId, admin } = await connectSite(await signUp(page, "partial"), ALL_SCOPES);
  const stamp = Date.now();
  const drafts = [`Autumn menu ${stamp}`, `Winter menu ${stamp}`];
  const calls = drafts.map((title) => ({
    name: "create_draft",
    arguments: { type: "page", title, content: para(title) },
  }));

  await page.goto(`${appUrl}/sites/${siteId}/chat?new=1`);
  await page.getByLabel("Message").fill(`calls ${JSON.stringify(calls)}`);
  await page.getByRole("button", { name: "Send" }).click();
  await page
    .getByTestId("rehearsal-link")
    .getByRole("link", { name: "Review and apply" })
    .click({ timeout: scaled(60_000) });
  const liveDrafts = async () =>
    (
      await admin.get<Array<{ title: { raw: string } }>>("/wp/v2/pages", {
        status: "draft",
        search: String(stamp),
        context: "edit",
      })
    ).data
      .map((p) => p.title.raw)
      .sort();

  // The owner applies the autumn menu first.
  const chooser = page.getByTestId("apply-chooser");
  await chooser.getByRole("checkbox", { name: new RegExp(drafts[0]!) }).check();
  await page.getByRole("button", { name: "Apply 1 chosen" }).click();
  await expect(page.getByTestId("review-outcome")).toContainText("Applied the chosen changes");
  expect(await liveDrafts()).toEqual([drafts[0]]);

  await page.reload();
  await expect(page.getByTestId("change-set-status")).toHaveAttribute("data-status", "partially_applied");
  await page.getByRole("button", { name: "Apply the rest to live site" }).click();
  await expect(page.getByTestId("review-outcome")).toContainText("Applied");
  expect(await liveDrafts()).toEqual([...drafts].sort());
});

test("reviews a conversation's rehearsals together and applies them in one Apply", async ({ page }) => {
  const { appUrl } = e2eState();
  const { siteId, admin } = await connectSite(await signUp(page, "together"), ALL_SCOPES);
  const stamp = Date.now();
  const drafts = [`Spring hours ${stamp}`, `Summer hours ${stamp}`];
  await page.goto(`${appUrl}/sites/${siteId}/chat?new=1`);
  for (const title of drafts) {
    await page
      .getByLabel("Message")
      .fill(`call create_draft ${JSON.stringify({ type: "page", title, content: para(title) })}`);
    await page.getByRole("button", { name: "Send" }).click();
    await expect(page.getByText("Done: create_draft.")).toHaveCount(drafts.indexOf(title) + 1, {
      timeout: scaled(60_000),
    });
  }
  await page.getByTestId("rehearsal-link").last().getByRole("link", { name: "Review and apply" }).click();
  const also = page.getByTestId("also-waiting");
  await expect(also.getByRole("link")).toHaveCount(1);
  await also.getByRole("button", { name: "Apply all 2 together" }).click();
  await expect(page.getByTestId("also-waiting-outcome")).toContainText("Applied all 2 rehearsals");
  const live = await admin.get<Array<{ title: { raw: string } }>>("/wp/v2/pages", {
    status: "draft",
    search: String(stamp),
    context: "edit",
  });
  expect(live.data.map((p) => p.title.raw).sort()).toEqual([...drafts].sort());
});
