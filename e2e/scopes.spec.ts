/**
 * Permissions as a new owner meets them: pairing through the plugin's real Connect form with its defaults grants
 * the design, so a colour change works; unticking "Change the design" in wp-admin makes the chat say exactly how
 * to grant it again, and ticking it again makes the next request work, with the same token (no new pairing).
 * The wizard passes axe (label-content-name-mismatch included) while a code is pending, also after a reload.
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { effectivePresets } from "../lib/agent/global-styles";
import { readGlobalStyles } from "../lib/agent/operations/global-styles-site";
import { scopeRefusal } from "../lib/sites/permissions";
import { SCOPES } from "../lib/vocabulary";
import { ALL_SCOPES, frontEnd, signUp, siteCredentials, useAppDatabase } from "./support/owner";
import { e2eState } from "./support/state";
import { allowTest, scaled } from "./support/waits";

useAppDatabase();

/** axe with its experimental label-content-name-mismatch rule on: no serious or critical finding. */
async function expectAccessible(page: Page, state: string) {
  const results = await new AxeBuilder({ page })
    .options({ rules: { "label-content-name-mismatch": { enabled: true } } })
    .analyze();
  const serious = results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  expect(serious, `axe on ${state}`).toEqual([]);
  await page.screenshot({ path: `.cache/screens/scopes-${state}.png`, fullPage: true });
}

/**
 * Loads a wp-admin page, again when Chromium aborted the load: this browser runs on the host where sandboxes start,
 * and a new sandbox's network makes Chromium abort loads in flight (ERR_NETWORK_CHANGED; see e2e/support/owner.ts).
 */
async function loadWp(wp: Page, path: string) {
  await expect(async () => {
    await wp.goto(`${e2eState().site.url}${path}`);
    await expect(wp.locator("#wpbody, #loginform").first()).toBeVisible({ timeout: 5_000 });
  }).toPass({ timeout: scaled(45_000) });
}

const PLUGIN_SCREEN = "/wp-admin/options-general.php?page=sitewright";

/** Submits a plugin form; if the page after it was aborted, the plugin screen shows the handler's notice anyway. */
async function submitAndLoad(wp: Page, submit: () => Promise<void>) {
  await submit().catch(() => {});
  await wp.waitForLoadState().catch(() => {});
  if (
    !(await wp
      .locator("#sitewright-settings")
      .isVisible()
      .catch(() => false))
  )
    await loadWp(wp, PLUGIN_SCREEN);
}

async function logIntoWordPress(wp: Page) {
  const { site } = e2eState();
  await expect(async () => {
    await loadWp(wp, "/wp-login.php");
    await wp.locator("#user_login").fill(site.adminUser);
    await wp.locator("#user_pass").fill(site.adminPassword);
    await wp.locator("#wp-submit").click();
    await expect(wp.locator("#wpadminbar")).toBeVisible({ timeout: scaled(10_000) });
  }).toPass({ timeout: scaled(60_000) });
}

const pluginScreen = (wp: Page) => loadWp(wp, PLUGIN_SCREEN);

/** Settings → Sitewright: tick or untick "Change the design" on the connection, then Save permissions. */
async function setDesignPermission(wp: Page, granted: boolean) {
  await pluginScreen(wp);
  const form = wp.locator("form.sitewright-permissions");
  await expect(form).toHaveCount(1);
  await form.getByLabel("Change the design", { exact: true }).setChecked(granted);
  await submitAndLoad(wp, () => form.getByRole("button", { name: "Save permissions" }).click());
  await expect(wp.locator('.notice[data-outcome="scopes_saved"]')).toBeVisible();
  const scopes = wp.locator("#sitewright-status td[data-scopes]");
  if (granted) await expect(scopes).toHaveAttribute("data-scopes", /design:write/);
  else await expect(scopes).not.toHaveAttribute("data-scopes", /design:write/);
}

async function ask(app: Page, text: string) {
  await app.getByLabel("Message").fill(text);
  await app.getByRole("button", { name: "Send" }).click();
}

test("pairs with the default permissions, changes a colour, and narrows and widens the design in wp-admin without pairing again", async ({
  browser,
}) => {
  allowTest(180_000);
  const { appUrl, site } = e2eState();
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const app = await context.newPage();
  const wp = await context.newPage();
  const errors: string[] = [];
  app.on("pageerror", (error) => errors.push(error.message));

  // The theme's first colour, read before pairing (pairing replaces every other token).
  const styles = await readGlobalStyles(siteCredentials(ALL_SCOPES).client);
  const colour = effectivePresets(styles.theme.settings, styles.user.settings, "colors")[0]!;
  const before = await frontEnd(`${site.url}/`);

  await signUp(app, "scopes");
  await app.goto(`${appUrl}/connect`);
  await expectAccessible(app, "connect-start");
  await app.getByLabel("Site address").fill(site.url);
  await app.getByRole("button", { name: "Get a pairing code" }).click();
  const code = (await app.getByTestId("pairing-code").textContent())!.trim();
  await expectAccessible(app, "connect-pending");
  // A reload while the code is pending shows the same code again.
  await app.reload();
  await expect(app.getByTestId("pairing-code")).toHaveText(code);
  await expectAccessible(app, "connect-pending-reloaded");

  // The plugin's Connect form, as it comes: every permission ticked, each explained.
  await logIntoWordPress(wp);
  await pluginScreen(wp);
  const connect = wp.locator("#sitewright-connect");
  await expect(connect.locator('input[type="checkbox"][name="sitewright_scopes[]"]')).toHaveCount(SCOPES.length);
  for (const box of await connect.locator('input[type="checkbox"]').all()) await expect(box).toBeChecked();
  await expect(connect).toContainText("Change colours, fonts, menus");
  await expect(connect).toContainText("still waits for your approval in Sitewright");
  await wp.locator("#sitewright_service_url").fill(appUrl);
  await wp.locator("#sitewright_code").fill(code);
  await submitAndLoad(wp, () => wp.locator("#sitewright-connect-submit").click());
  await expect(wp.locator(".notice[data-outcome]")).toHaveClass(/notice-success/);
  const token = (await wp.locator("#sitewright-status tbody tr code").first().textContent())!.trim();
  await wp.screenshot({ path: ".cache/screens/scopes-plugin-permissions.png", fullPage: true });

  // The wizard says what was granted, in words.
  await expect(app.getByTestId("pairing-redeemed").getByTestId("permissions")).toHaveAttribute(
    "data-granted",
    SCOPES.join(" "),
  );
  await expect(app.getByTestId("pairing-redeemed")).toContainText("Change the design");
  await app.getByRole("button", { name: "Confirm" }).click();
  await expect(app.getByTestId("pairing-active")).toContainText("What Sitewright may do on this site (6 of 6)");
  await expectAccessible(app, "connect-active");
  await app.getByRole("link", { name: "Start chatting about this site" }).click();

  // A design request works with the defaults: the colour waits for the owner's click, then lands.
  await ask(app, `Make the colour ${colour.slug} #c0ffee`);
  const card = app.locator('[data-testid="tool-card"][data-state="approval"]').last();
  // The colour is shown as itself beside its code (a swatch), before and after.
  await expect(card.locator("ins [data-testid=swatch]")).toHaveAttribute(
    "style",
    /background: (#c0ffee|rgb\(192, 255, 238\))/i,
  );
  await card.getByRole("button", { name: "Approve" }).click();
  await expect(app.getByText(`The colour ${colour.slug} is handled.`)).toHaveCount(1);
  await expect
    .poll(async () => frontEnd(`${site.url}/`))
    .toMatch(new RegExp(`--wp--preset--color--${colour.slug}:\\s*#c0ffee`, "i"));

  // Narrowed in wp-admin: the chat says exactly how to grant it, and nothing changes.
  await setDesignPermission(wp, false);
  await ask(app, `Make the colour ${colour.slug} #0ff1ce`);
  const refusal = scopeRefusal("design:write");
  expect(refusal).toContain(
    "In WordPress, go to Settings → Sitewright, tick “Change the design” and click Save permissions.",
  );
  await expect(app.locator('[data-testid="tool-card"][data-state="error"]').last()).toContainText(refusal);
  await expect(app.locator('[data-role="assistant"]').last()).toContainText(refusal);
  await app.reload();
  await expect(app.getByTestId("permissions")).not.toHaveAttribute("data-granted", /design:write/);
  await app.getByTestId("permissions").locator("summary").click();
  await expect(app.getByTestId("missing-permissions")).toContainText("tick “Change the design”");
  await expectAccessible(app, "chat-design-not-granted");

  // Widened again: the next request works, with the same token.
  await setDesignPermission(wp, true);
  await expect(wp.locator("#sitewright-status tbody tr")).toHaveCount(1);
  await expect(wp.locator("#sitewright-status tbody tr code").first()).toHaveText(token);
  await ask(app, `Make the colour ${colour.slug} #0ff1ce`);
  await app
    .locator('[data-testid="tool-card"][data-state="approval"]')
    .last()
    .getByRole("button", { name: "Approve" })
    .click();
  await expect(app.getByText(`The colour ${colour.slug} is handled.`)).toHaveCount(2);
  await expect
    .poll(async () => frontEnd(`${site.url}/`))
    .toMatch(new RegExp(`--wp--preset--color--${colour.slug}:\\s*#0ff1ce`, "i"));

  // Leave the shared site as it was: undo both changes, newest first.
  await app.goto(`${app.url().replace(/\/chat.*$/, "")}/changes/history`);
  for (let i = 0; i < 2; i++) {
    await app
      .locator('[data-testid="change-set"][data-status="applied"]')
      .first()
      .getByRole("button", { name: "Undo" })
      .click();
    await expect(app.locator('[data-testid="change-set"][data-status="applied"]')).toHaveCount(1 - i);
  }
  await expect.poll(async () => frontEnd(`${site.url}/`)).toBe(before);
  expect(errors).toEqual([]);
  await context.close();
});
