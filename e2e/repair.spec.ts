import { expect, test, type Page } from "@playwright/test";
import { connectSite, frontEnd, signUp, useAppDatabase } from "./support/owner";
import { e2eState } from "./support/state";
import { logInToWordPress } from "./support/wp-login";

useAppDatabase();

async function enterCodeInPlugin(page: Page, code: string) {
  const { site, appUrl } = e2eState();
  await logInToWordPress(page, site.url, site.adminUser, site.adminPassword);
  await expect(page.locator("#wpadminbar")).toBeVisible();
  await page.goto(`${site.url}/wp-admin/options-general.php?page=sitewright`);
  await page.locator("#sitewright_service_url").fill(appUrl);
  await page.locator("#sitewright_code").fill(code);
  await page.locator("#sitewright-connect-submit").click();
  await expect(page.locator(".notice[data-outcome]")).toHaveClass(/notice-success/);
}

test("pairing a site again keeps its history: an earlier change is listed and undone from the Changes page", async ({
  page,
  context,
}) => {
  const { appUrl, site } = e2eState();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  const { siteId, admin } = await connectSite(await signUp(page, "repair"));
  const { data: created } = await admin.post<{ id: number; link: string }>("/wp/v2/pages", {
    title: "Opening hours",
    status: "publish",
  });

  // A change made before re-pairing.
  await page.goto(`${appUrl}/sites/${siteId}/chat`);
  await page.getByLabel("Message").fill(`Rename page ${created.id} to "Winter opening hours"`);
  await page.getByRole("button", { name: "Send" }).click();
  await page
    .locator('[data-testid="tool-card"][data-state="approval"]')
    .getByRole("button", { name: "Approve" })
    .click();
  await expect(page.getByText(`Renamed page ${created.id} to “Winter opening hours”.`)).toBeVisible();

  // Pair the same address again through the wizard and the plugin (e.g. to grant more permissions).
  await page.goto(`${appUrl}/connect`);
  await page.getByLabel("Site address").fill(site.url);
  await page.getByRole("button", { name: "Get a pairing code" }).click();
  const code = (await page.getByTestId("pairing-code").textContent())!.trim();
  await enterCodeInPlugin(await context.newPage(), code);
  await expect(page.getByTestId("pairing-redeemed")).toBeVisible();
  await page.getByRole("button", { name: "Confirm" }).click();
  await expect(page.getByTestId("pairing-active")).toBeVisible();
  // The same site, not a new one.
  await expect(page.getByRole("link", { name: "Start chatting about this site" })).toHaveAttribute(
    "href",
    `/sites/${siteId}/chat`,
  );
  await page.goto(appUrl);
  await expect(page.getByTestId("sites").getByText("Connected", { exact: true })).toHaveCount(1);
  await expect(page.getByTestId("sites").locator(`a[href="/sites/${siteId}/chat"]`).first()).toBeVisible();

  // The earlier change is on the Changes page, and Undo works with the new connection.
  await page.goto(`${appUrl}/sites/${siteId}/changes/history`);
  const set = page.getByTestId("change-set").first();
  await expect(set).toHaveAttribute("data-status", "applied");
  await expect(set.locator("ins")).toHaveText("Winter opening hours");
  await set.getByRole("button", { name: "Undo" }).click();
  await expect(page.getByTestId("change-set").first()).toHaveAttribute("data-status", "undone");
  await expect(page.getByText("This site is not connected")).toHaveCount(0);
  const restored = await frontEnd(created.link);
  expect(restored).toContain("Opening hours");
  expect(restored).not.toContain("Winter opening hours");
  expect(errors).toEqual([]);
});
