/**
 * Proof on the live site, in Chromium against the real WordPress: after the owner approves a rename, Sitewright looks
 * at the public page as a visitor and says "Verified on the live site" with its address; a page cache that nothing
 * purges makes it "Not visible yet", with the reason and an Undo; a plugin that puts the title back after the write
 * is reported as not visible, never as done; an Undo is checked the same way.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { installMuPlugin, runAsAdmin } from "../test/wordpress";
import { connectSite, frontEnd, signUp, useAppDatabase } from "./support/owner";
import { e2eState } from "./support/state";
import { scaled } from "./support/waits";

useAppDatabase();

const setOption = (name: string, value: unknown) =>
  runAsAdmin(e2eState().site.wpPath, "update_option($args['name'], $args['value']); echo 'true';", { name, value });

test.beforeAll(() => {
  installMuPlugin(
    e2eState().site.wpPath,
    "sitewright-test-page-cache.php",
    readFileSync(path.resolve("test/fixtures/page-cache-mu-plugin.php"), "utf8"),
  );
});

test.afterEach(async () => {
  await setOption("sitewright_test_cache_mode", "off");
  await setOption("sitewright_test_revert_title", 0);
});

async function renameAndApprove(page: Page, siteId: string, pageId: number, title: string) {
  const { appUrl } = e2eState();
  await page.goto(`${appUrl}/sites/${siteId}/chat`);
  await page.getByLabel("Message").fill(`Rename page ${pageId} to "${title}"`);
  await page.getByRole("button", { name: "Send" }).click();
  const approval = page.locator('[data-testid="tool-card"][data-state="approval"]').last();
  await approval.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByText(`Renamed page ${pageId} to “${title}”.`)).toBeVisible();
}

async function publishedPage(siteAdmin: Awaited<ReturnType<typeof connectSite>>["admin"], title: string) {
  const { data } = await siteAdmin.post<{ id: number; link: string }>("/wp/v2/pages", {
    title,
    content: "<!-- wp:paragraph --><p>Fresh bread every morning.</p><!-- /wp:paragraph -->",
    status: "publish",
  });
  return data;
}

test("an approved rename is verified on the live site, and so is its undo", async ({ page }) => {
  const { appUrl } = e2eState();
  const { siteId, admin } = await connectSite(await signUp(page, "verify"));
  const created = await publishedPage(admin, "Bakery");
  await setOption("sitewright_test_cache_mode", "rocket"); // a page cache Sitewright can purge
  await frontEnd(created.link); // a visitor fills it with the old page

  await renameAndApprove(page, siteId, created.id, "Our bakery");
  const onCard = page.getByTestId("verification").last();
  await expect(onCard).toHaveAttribute("data-status", "verified", { timeout: scaled(30_000) });
  await expect(onCard).toContainText("Verified on the live site");
  await expect(onCard.getByRole("link")).toHaveCount(1);

  await page.goto(`${appUrl}/sites/${siteId}/changes/history`);
  const set = page.getByTestId("change-set").first();
  await expect(set.getByTestId("verification")).toHaveAttribute("data-status", "verified");
  await set.getByRole("button", { name: "Undo" }).click();
  await expect(set).toHaveAttribute("data-status", "undone");
  await expect(set.getByTestId("verification")).toHaveAttribute("data-status", "verified", { timeout: scaled(30_000) });
  expect(await frontEnd(created.link)).toContain("Bakery");
});

test("a cache that nothing purges is reported as not visible yet, with the reason and an Undo", async ({ page }) => {
  const { appUrl } = e2eState();
  const { siteId, admin } = await connectSite(await signUp(page, "stubborn"));
  const created = await publishedPage(admin, "Prices");
  await setOption("sitewright_test_cache_mode", "stubborn");
  await frontEnd(created.link);

  await renameAndApprove(page, siteId, created.id, "Price list");
  await page.goto(`${appUrl}/sites/${siteId}/changes/history`);
  const status = page.getByTestId("change-set").first().getByTestId("verification");
  await expect(status).toHaveAttribute("data-status", "not_visible", { timeout: scaled(30_000) });
  await expect(status).toContainText("Not visible yet on the live site");
  await expect(status).toContainText("a cache in front of the site");
  await page.screenshot({ path: ".cache/screens/verification-not-visible.png", fullPage: true });
  await status.getByRole("button", { name: "Undo this change" }).click();
  await expect(page.getByTestId("change-set").first()).toHaveAttribute("data-status", "undone");
  await setOption("sitewright_test_cache_mode", "off");
  expect(await frontEnd(created.link)).not.toContain("Price list");
});

test("a plugin that puts the title back after the write makes it not visible, never done", async ({ page }) => {
  const { appUrl } = e2eState();
  const { siteId, admin } = await connectSite(await signUp(page, "revert"));
  const created = await publishedPage(admin, "Team");
  await setOption("sitewright_test_revert_title", created.id);

  await renameAndApprove(page, siteId, created.id, "Our team");
  await page.goto(`${appUrl}/sites/${siteId}/changes/history`);
  const status = page.getByTestId("change-set").first().getByTestId("verification");
  await expect(status).toHaveAttribute("data-status", "not_visible", { timeout: scaled(30_000) });
  await expect(status).toContainText("after the write");
});
