/**
 * A block-theme site in the browser: the owner asks for a colour, the approval card names the colour and its old
 * and new value, the front page changes only once approved, and Undo on the Changes page gives the page back
 * exactly. The local WordPress runs its default block theme; the test reads the palette, it names no theme.
 */
import { expect, test } from "@playwright/test";
import { effectivePresets, variationBrief } from "../lib/agent/global-styles";
import { readGlobalStyles } from "../lib/agent/operations/global-styles-site";
import { connectSite, frontEnd, signUp, useAppDatabase } from "./support/owner";
import { e2eState } from "./support/state";

useAppDatabase();

test("a colour change shows the colour by name on the approval card, lands once approved, and Undo restores the page", async ({
  page,
}) => {
  const { appUrl, site } = e2eState();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));

  const { siteId, admin, info } = await connectSite(
    await signUp(page, "blocktheme"),
    "site:read,content:read,design:write",
  );
  expect((info.theme as { isBlockTheme: boolean }).isBlockTheme).toBe(true);

  const styles = await readGlobalStyles(admin);
  const colour = effectivePresets(styles.theme.settings, styles.user.settings, "colors")[0]!;
  const before = await frontEnd(`${site.url}/`);

  await page.goto(`${appUrl}/sites/${siteId}/chat`);
  await page.getByLabel("Message").fill(`Make the colour ${colour.slug} #c0ffee`);
  await page.getByRole("button", { name: "Send" }).click();
  const approval = page.locator('[data-testid="tool-card"][data-state="approval"]').last();
  await expect(approval.getByTestId("change-diff")).toBeVisible();
  await expect(approval.getByText(`Colour ${colour.name ?? colour.slug}`)).toBeVisible();
  await expect(approval.locator("del")).toHaveText(colour.color!);
  await expect(approval.locator("ins")).toHaveText("#c0ffee");
  expect(await frontEnd(`${site.url}/`)).toBe(before);
  await page.screenshot({ path: ".cache/screens/block-theme-approval.png", fullPage: true });

  await approval.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByText(`The colour ${colour.slug} is handled.`)).toBeVisible();
  await expect
    .poll(async () => frontEnd(`${site.url}/`))
    .toMatch(new RegExp(`--wp--preset--color--${colour.slug}:\\s*#c0ffee`, "i"));

  await page.goto(`${appUrl}/sites/${siteId}/changes/history`);
  const set = page.getByTestId("change-set").first();
  await expect(set).toHaveAttribute("data-status", "applied");
  await set.getByRole("button", { name: "Undo" }).click();
  await expect(page.getByTestId("change-set").first()).toHaveAttribute("data-status", "undone");
  expect(await frontEnd(`${site.url}/`)).toBe(before);
  expect(errors).toEqual([]);
});

test("a style variation is named on the approval card, its palette lands once approved, and Undo restores the page", async ({
  page,
}) => {
  const { appUrl, site } = e2eState();
  const { siteId, admin } = await connectSite(await signUp(page, "variation"), "site:read,content:read,design:write");
  const styles = await readGlobalStyles(admin);
  const current = new Map(
    effectivePresets(styles.theme.settings, styles.user.settings, "colors").map((c) => [c.slug, c.color]),
  );
  const variation = styles.variations
    .map(variationBrief)
    .find((v) => Object.entries(v.colors).some(([slug, color]) => current.get(slug) && current.get(slug) !== color));
  expect(variation, "the theme has a style variation with its own palette").toBeDefined();
  const [slug, colour] = Object.entries(variation!.colors).find(([s, c]) => current.get(s) && current.get(s) !== c)!;
  const before = await frontEnd(`${site.url}/`);

  await page.goto(`${appUrl}/sites/${siteId}/chat`);
  await page.getByLabel("Message").fill(`Use the style variation "${variation!.title}"`);
  await page.getByRole("button", { name: "Send" }).click();
  const approval = page.locator('[data-testid="tool-card"][data-state="approval"]').last();
  await expect(approval.getByText("Style variation")).toBeVisible();
  await expect(approval.locator("ins", { hasText: variation!.title }).first()).toBeVisible();
  expect(await frontEnd(`${site.url}/`)).toBe(before);

  await approval.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByText(`The style variation ${variation!.title} is handled.`)).toBeVisible();
  const escaped = colour!.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  await expect
    .poll(async () => frontEnd(`${site.url}/`))
    .toMatch(new RegExp(`--wp--preset--color--${slug}:\\s*${escaped}`, "i"));

  await page.goto(`${appUrl}/sites/${siteId}/changes/history`);
  const set = page.getByTestId("change-set").first();
  await expect(set).toHaveAttribute("data-status", "applied");
  await set.getByRole("button", { name: "Undo" }).click();
  await expect(page.getByTestId("change-set").first()).toHaveAttribute("data-status", "undone");
  expect(await frontEnd(`${site.url}/`)).toBe(before);
});
