/**
 * The page as the server drew it, before any script ran: a second context signed in as `page` with JavaScript off.
 * A button that acts through a click handler must be disabled there (app/use-hydrated.ts): a click landing on the
 * server's HTML before hydration is otherwise lost, and under load that window is seconds long.
 */
import type { Page } from "@playwright/test";

export async function asServerDrewIt(page: Page, url: string, check: (drawn: Page) => Promise<void>) {
  const browser = page.context().browser();
  if (!browser) throw new Error("asServerDrewIt needs a page from a launched browser");
  const context = await browser.newContext({
    storageState: await page.context().storageState(),
    javaScriptEnabled: false,
    ignoreHTTPSErrors: true,
  });
  try {
    const drawn = await context.newPage();
    await drawn.goto(url);
    await check(drawn);
  } finally {
    await context.close();
  }
}
