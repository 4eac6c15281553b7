import { expect, type Page } from "@playwright/test";
import { scaled } from "./waits";

/**
 * Logs in to wp-admin as a person does. wp-login.php focuses and selects the username field about 200 ms after it
 * loads; on a busy machine a fill that lands in between types the password into the username field. So: wait for
 * that focus, fill, and check both values before submitting.
 */
export async function logInToWordPress(page: Page, siteUrl: string, user: string, password: string) {
  await page.goto(`${siteUrl}/wp-login.php`);
  await page
    .waitForFunction(() => document.activeElement?.id === "user_login", null, { timeout: 5_000 })
    .catch(() => undefined);
  await expect(async () => {
    await page.locator("#user_login").fill(user);
    await page.locator("#user_pass").fill(password);
    await expect(page.locator("#user_login")).toHaveValue(user, { timeout: 1_000 });
    await expect(page.locator("#user_pass")).toHaveValue(password, { timeout: 1_000 });
  }).toPass({ timeout: scaled(30_000) });
  await page.locator("#wp-submit").click();
}
