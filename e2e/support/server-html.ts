/**
 * The page as the server drew it, before React hydrated it: a second context signed in as `page` in which the
 * app's JavaScript bundles never load (inline scripts still run, so content the server streamed into a Suspense
 * boundary is revealed, as a browser shows it while the bundles are still on their way). A button that acts through
 * a click handler must be disabled there (app/use-hydrated.ts): a click landing before hydration is otherwise lost,
 * and under load that window is seconds long.
 */
import type { Page } from "@playwright/test";

export async function asServerDrewIt(page: Page, url: string, check: (drawn: Page) => Promise<void>) {
  const browser = page.context().browser();
  if (!browser) throw new Error("asServerDrewIt needs a page from a launched browser");
  const context = await browser.newContext({
    storageState: await page.context().storageState(),
    ignoreHTTPSErrors: true,
  });
  try {
    await context.route(/\/_next\/static\/chunks\//, (route) => route.abort());
    const drawn = await context.newPage();
    await drawn.goto(url);
    await check(drawn);
  } finally {
    await context.close();
  }
}
