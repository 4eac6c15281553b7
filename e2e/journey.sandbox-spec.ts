/**
 * A newcomer's whole journey, in Chromium, on the real parts (production build, PostgreSQL, WordPress with our
 * plugin over https, Podman sandboxes, the scripted model behind the real provider path): sign up → pair the site
 * through its own admin screen → ask for an edit → see its diff and approve it → see it on WordPress → undo it →
 * rehearse a change in a sandbox → preview it → apply it. A screenshot per step is kept in
 * `.cache/test-results/journey/` (the CI artifact a person reviews).
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { expectFrameToShow, PASSWORD, siteCredentials } from "./support/owner";
import { e2eState } from "./support/state";
import { logInToWordPress } from "./support/wp-login";
import { allowTest, scaled } from "./support/waits";

const shots = path.resolve(".cache/test-results/journey");
const para = (text: string) => `<!-- wp:paragraph --><p>${text}</p><!-- /wp:paragraph -->`;

/** The site owner's own WordPress access, to make a page before the journey and to read what visitors get. */
const ownerClient = () => siteCredentials().client;

test("sign up, pair, edit with approval, see it, undo it, rehearse in a sandbox, preview and apply", async ({
  browser,
}) => {
  allowTest(240_000);
  const { appUrl, site } = e2eState();
  mkdirSync(shots, { recursive: true });
  let step = 0;
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: path.join(shots, `${String(++step).padStart(2, "0")}-${name}.png`), fullPage: true });

  // Before the journey: the owner's site has a published page. (Connecting through wp-admin later revokes every
  // earlier key, so the owner's own reads after that use a new one.)
  let owner = ownerClient();
  const title = `Opening times ${Date.now()}`;
  const { data: created } = await owner.post<{ id: number; link: string }>("/wp/v2/pages", {
    title,
    status: "publish",
    content: para("Open 8 to 18"),
  });
  const liveContent = async () =>
    (await owner.get<{ content: { raw: string } }>(`/wp/v2/pages/${created.id}`, { context: "edit" })).data.content.raw;

  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const app = await context.newPage();
  const wp = await context.newPage();
  const errors: string[] = [];
  app.on("pageerror", (error) => errors.push(error.message));

  // 1. Sign up.
  await app.goto(`${appUrl}/signup`);
  await app.getByLabel("Email").fill(`journey${Date.now()}@example.com`);
  await app.getByLabel("Password").fill(PASSWORD);
  await app.getByRole("button", { name: "Create account" }).click();
  await expect(app.getByTestId("signed-in-as")).toBeVisible();
  await shot(app, "signed-up");

  // 2. Pair the site: a code in Sitewright, typed into the plugin's screen in wp-admin, then Confirm.
  await app.getByRole("link", { name: "Connect a WordPress site" }).click();
  await app.getByLabel("Site address").fill(site.url);
  await app.getByRole("button", { name: "Get a pairing code" }).click();
  const code = (await app.getByTestId("pairing-code").textContent())!.trim();
  await shot(app, "pairing-code");
  await logInToWordPress(wp, site.url, site.adminUser, site.adminPassword);
  await expect(wp.locator("#wpadminbar")).toBeVisible();
  await wp.goto(`${site.url}/wp-admin/options-general.php?page=sitewright`);
  await wp.locator("#sitewright_service_url").fill(appUrl);
  await wp.locator("#sitewright_code").fill(code);
  await wp.locator("#sitewright-connect-submit").click();
  await expect(wp.locator(".notice[data-outcome]")).toHaveClass(/notice-success/);
  await shot(wp, "plugin-code-entered");
  await expect(app.getByTestId("pairing-redeemed")).toBeVisible();
  await app.getByRole("button", { name: "Confirm" }).click();
  await expect(app.getByTestId("pairing-active")).toBeVisible();
  await shot(app, "paired");
  owner = ownerClient();

  // 3. Ask for an edit on the live site: visitors would see it, so it waits with its diff for the owner's click.
  await app.getByRole("link", { name: "Start chatting about this site" }).click();
  await app.getByRole("radio", { name: /Live site/ }).check();
  await app.getByLabel("Message").fill(`Rename page ${created.id} to "Summer opening times"`);
  await app.getByRole("button", { name: "Send" }).click();
  const approval = app.locator('[data-testid="tool-card"][data-state="approval"]').last();
  await expect(approval.getByTestId("change-diff")).toBeVisible();
  await expect(approval.locator("del")).toHaveText(title);
  await expect(approval.locator("ins")).toHaveText("Summer opening times");
  await shot(app, "diff-waits-for-approval");
  await wp.goto(created.link);
  await expect(wp.getByRole("heading", { name: title, exact: true })).toBeVisible();

  // 4. Approve; the site shows it.
  await approval.getByRole("button", { name: /^Approve/ }).click();
  await expect(app.getByText(`Renamed page ${created.id} to “Summer opening times”.`)).toBeVisible();
  await shot(app, "approved");
  await wp.goto(created.link);
  await expect(wp.getByRole("heading", { name: "Summer opening times", exact: true })).toBeVisible();
  await shot(wp, "on-wordpress");

  // 5. Undo the turn from the Changes page; the site is as before.
  await app.getByTestId("turn-changes").last().click();
  const set = app.getByTestId("change-set").first();
  await expect(set).toHaveAttribute("data-status", "applied");
  await set.getByRole("button", { name: "Undo" }).click();
  await expect(app.getByTestId("change-set").first()).toHaveAttribute("data-status", "undone");
  await shot(app, "undone");
  await wp.goto(created.link);
  await expect(wp.getByRole("heading", { name: title, exact: true })).toBeVisible();
  await shot(wp, "wordpress-after-undo");

  // 6. Rehearse a change in a sandbox (the default when sandboxes are on): the live site does not change.
  await app.goto(`${appUrl}${new URL(app.url()).pathname.replace(/\/changes\/history$/, "/chat")}`);
  await expect(app.getByRole("radio", { name: /Sandbox/ })).toBeChecked();
  await app.getByLabel("Message").fill(`Change the text of "${title}" to "Open 7 to 19, Sundays too"`);
  await app.getByRole("button", { name: "Send" }).click();
  const rehearsed = app.getByTestId("rehearsal-link");
  await expect(rehearsed).toBeVisible({ timeout: scaled(90_000) });
  expect(await liveContent()).toBe(para("Open 8 to 18"));
  await shot(app, "rehearsed");

  // 7. Preview it through Sitewright's own address, then apply it in one click.
  await rehearsed.getByRole("link", { name: "Review and apply" }).click();
  // Side by side: the live page as visitors see it now, and the sandbox's page with the change.
  await expectFrameToShow(app, `${title} on the live site`, "Open 8 to 18");
  await expectFrameToShow(app, `${title} in the sandbox`, "Open 7 to 19, Sundays too");
  await shot(app, "review-side-by-side");
  const [preview] = await Promise.all([context.waitForEvent("page"), app.getByTestId("preview-link").click()]);
  await preview.waitForLoadState();
  expect(preview.url().startsWith(`${appUrl}/preview/`)).toBe(true);
  await expect(preview.getByText("Open 7 to 19, Sundays too")).toBeVisible();
  await shot(preview, "preview");
  await preview.close();
  await app.getByRole("button", { name: "Apply to live site" }).click();
  await expect(app.getByTestId("review-outcome")).toContainText("Applied");
  expect(await liveContent()).toBe(para("Open 7 to 19, Sundays too"));
  await shot(app, "applied");
  await wp.goto(created.link);
  await expect(wp.getByText("Open 7 to 19, Sundays too")).toBeVisible();
  await shot(wp, "wordpress-after-apply");

  expect(errors).toEqual([]);
  await context.close();
});
