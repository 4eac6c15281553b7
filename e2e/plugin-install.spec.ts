/**
 * A site owner's first contact with the plugin: on a fresh WordPress without it, the zip the app serves is uploaded
 * through wp-admin's Plugins → Add New → Upload Plugin, installed, activated, and paired with the app.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { type LocalSite, startLocalSite } from "../scripts/site-local";
import { e2eState } from "./support/state";
import { logInToWordPress } from "./support/wp-login";
import { allowTest, scaled } from "./support/waits";

const password = "a long and unusual passphrase 7";
let fresh: LocalSite;
let downloads: string;

test.beforeAll(async () => {
  fresh = await startLocalSite({ title: "Sitewright Upload", plugin: false, fileMods: true });
  downloads = mkdtempSync(join(tmpdir(), "sitewright-zip-"));
});
test.afterAll(async () => {
  await fresh?.stop();
  if (downloads) rmSync(downloads, { recursive: true, force: true });
});

test("the zip from the app installs through wp-admin's upload on a fresh WordPress, activates and pairs", async ({
  browser,
}) => {
  allowTest(150_000);
  const { appUrl } = e2eState();
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const app = await context.newPage();
  const wp = await context.newPage();
  const errors: string[] = [];
  app.on("pageerror", (error) => errors.push(error.message));

  // The app serves the plugin as a download.
  const zipResponse = await context.request.get(`${appUrl}/plugin/sitewright-connector.zip`);
  expect(zipResponse.status()).toBe(200);
  expect(zipResponse.headers()["content-disposition"]).toBe('attachment; filename="sitewright-connector.zip"');
  const zipPath = join(downloads, "sitewright-connector.zip");
  writeFileSync(zipPath, await zipResponse.body());

  // A fresh WordPress: the plugin is not there yet.
  await logInToWordPress(wp, fresh.url, fresh.adminUser, fresh.adminPassword);
  await expect(wp.locator("#wpadminbar")).toBeVisible();
  await wp.goto(`${fresh.url}/wp-admin/plugins.php`);
  await expect(wp.locator('tr[data-slug="sitewright-connector"]')).toHaveCount(0);

  // Plugins → Add New → Upload Plugin → choose the zip → Install Now → Activate.
  await wp.goto(`${fresh.url}/wp-admin/plugin-install.php`);
  await wp.locator(".upload-view-toggle").first().click();
  await wp.locator("#pluginzip").setInputFiles(zipPath);
  await wp.locator("#install-plugin-submit").click();
  await expect(wp.locator(".wrap")).toContainText("Plugin installed successfully.", { timeout: scaled(30_000) });
  await wp.getByRole("link", { name: "Activate Plugin" }).click();
  await expect(wp.locator('tr[data-slug="sitewright-connector"].active')).toBeVisible();
  await wp.screenshot({ path: ".cache/screens/plugin-uploaded.png", fullPage: true });

  // Pair it with the app.
  await app.goto(`${appUrl}/signup`);
  await app.getByLabel("Email").fill(`upload${Date.now()}@example.com`);
  await app.getByLabel("Password").fill(password);
  await app.getByRole("button", { name: "Create account" }).click();
  await expect(app.getByTestId("signed-in-as")).toBeVisible();
  await app.goto(`${appUrl}/connect`);
  await app.getByLabel("Site address").fill(fresh.url);
  await app.getByRole("button", { name: "Get a pairing code" }).click();
  const code = (await app.getByTestId("pairing-code").textContent())!.trim();

  await wp.goto(`${fresh.url}/wp-admin/options-general.php?page=sitewright`);
  await wp.locator("#sitewright_service_url").fill(appUrl);
  await wp.locator("#sitewright_code").fill(code);
  await wp.locator("#sitewright-connect-submit").click();
  await expect(wp.locator(".notice[data-outcome]")).toHaveClass(/notice-success/);

  await expect(app.getByTestId("pairing-redeemed")).toBeVisible();
  await expect(app.getByTestId("site-name")).toHaveText("Sitewright Upload");
  await app.getByRole("button", { name: "Confirm" }).click();
  await expect(app.getByTestId("pairing-active")).toBeVisible();
  await wp.goto(`${fresh.url}/wp-admin/options-general.php?page=sitewright`);
  await expect(wp.locator('#sitewright-status[data-status="connected"]')).toBeVisible();
  expect(errors).toEqual([]);
  await context.close();
});
