import { expect, test, type Page } from "@playwright/test";
import { openDatabase, setDatabaseForTests } from "../lib/db";
import { getSiteByIdForTests } from "./support/sites";
import { e2eState } from "./support/state";
import { logInToWordPress } from "./support/wp-login";

const password = "a long and unusual passphrase 7";

async function logIntoWordPress(page: Page) {
  const { site } = e2eState();
  await logInToWordPress(page, site.url, site.adminUser, site.adminPassword);
  await expect(page.locator("#wpadminbar")).toBeVisible();
}

async function enterCodeInPlugin(page: Page, code: string) {
  const { site, appUrl } = e2eState();
  await page.goto(`${site.url}/wp-admin/options-general.php?page=sitewright`);
  await page.locator("#sitewright_service_url").fill(appUrl);
  await page.locator("#sitewright_code").fill(code);
  await page.locator("#sitewright-connect-submit").click();
  return page.locator(".notice[data-outcome]");
}

test("pairs a real WordPress site from the wizard, and a signed request works afterwards", async ({ browser }) => {
  const { appUrl, site, databaseUrl } = e2eState();
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const app = await context.newPage();
  const wp = await context.newPage();
  const errors: string[] = [];
  app.on("pageerror", (error) => errors.push(error.message));
  const started = Date.now();

  await app.goto(`${appUrl}/signup`);
  await app.getByLabel("Email").fill(`pair${Date.now()}@example.com`);
  await app.getByLabel("Password").fill(password);
  await app.getByRole("button", { name: "Create account" }).click();
  await app.getByRole("link", { name: "Connect a WordPress site" }).click();

  await app.getByLabel("Site address").fill(site.url);
  await app.getByRole("button", { name: "Get a pairing code" }).click();
  const shown = (await app.getByTestId("pairing-code").textContent())!.trim();
  expect(shown).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
  await expect(app.getByTestId("countdown")).toContainText(/Expires in [45]:\d\d/);
  await app.screenshot({ path: ".cache/screens/pairing-code.png", fullPage: true });

  await logIntoWordPress(wp);
  // A wrong code first: the plugin says how many attempts are left, and the wizard shows it too.
  const wrong = shown.startsWith("B") ? "CCCC-CCCC" : "BBBB-BBBB";
  const wrongNotice = await enterCodeInPlugin(wp, wrong);
  await expect(wrongNotice).toHaveAttribute("data-outcome", "invalid_code");
  await expect(wrongNotice).toContainText("4");
  await expect(app.getByText("4 attempts left")).toBeVisible();

  // Then the right one, typed in lower case as a person might.
  const notice = await enterCodeInPlugin(wp, shown.toLowerCase());
  await expect(notice).toHaveClass(/notice-success/);

  await expect(app.getByTestId("pairing-redeemed")).toBeVisible();
  await expect(app.getByTestId("site-name")).toHaveText("Sitewright E2E");
  await expect(app.getByTestId("page-builder")).toContainText("Gutenberg");
  await app.getByRole("button", { name: "Confirm" }).click();
  await expect(app.getByTestId("pairing-active")).toBeVisible();
  await expect(app.getByTestId("preflight")).toContainText(/All \d+ checks passed|need(s)? your attention/);
  await app.screenshot({ path: ".cache/screens/pairing-active.png", fullPage: true });
  expect(Date.now() - started).toBeLessThan(60_000);

  // The plugin now reports the connection as confirmed.
  await wp.goto(`${site.url}/wp-admin/options-general.php?page=sitewright`);
  await expect(wp.locator('#sitewright-status[data-status="connected"]')).toBeVisible();
  await wp.screenshot({ path: ".cache/screens/plugin-connected.png", fullPage: true });

  // And a signed request through the stored credentials works.
  const handle = await openDatabase(databaseUrl);
  await setDatabaseForTests(handle);
  try {
    const chatLink = await app.getByRole("link", { name: "Start chatting about this site" }).getAttribute("href");
    const siteId = /^\/sites\/([^/]+)\/chat$/.exec(chatLink ?? "")![1]!;
    const info = await getSiteByIdForTests(siteId);
    expect(info.status).toBe(200);
    expect((info.data as { name: string }).name).toBe("Sitewright E2E");
  } finally {
    await handle.close();
    await setDatabaseForTests(undefined);
  }

  await app.goto(appUrl);
  await expect(app.getByTestId("sites")).toContainText("Connected");
  expect(errors).toEqual([]);
  await context.close();
});

test("the wizard says so when the URL is not https or points to a private address", async ({ page }) => {
  const { appUrl } = e2eState();
  await page.goto(`${appUrl}/signup`);
  await page.getByLabel("Email").fill(`wiz${Date.now()}@example.com`);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByTestId("signed-in-as")).toBeVisible();
  await page.goto(`${appUrl}/connect`);
  await page.getByLabel("Site address").fill("http://example.com");
  await page.getByRole("button", { name: "Get a pairing code" }).click();
  await expect(page.locator('[data-error-code="insecure_url"]')).toContainText("https");
  await page.getByLabel("Site address").fill("https://10.1.2.3");
  await page.getByRole("button", { name: "Get a pairing code" }).click();
  await expect(page.locator('[data-error-code="forbidden_host"]')).toContainText("private");
});
