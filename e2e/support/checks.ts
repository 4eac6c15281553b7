/**
 * What every page state in the product specs must pass: axe finds no serious or critical violation, nothing
 * overflows sideways, and a screenshot of the state is kept under .cache/test-results/screens/.
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

export const SCREENS = ".cache/test-results/screens";

/**
 * `frames: false` leaves out the page's iframes: the review page frames the site's own pages (WordPress's theme,
 * not ours, one of them with scripts off), which axe cannot run in and would wait for.
 */
export async function expectAccessible(page: Page, state: string, { frames = true } = {}) {
  const builder = new AxeBuilder({ page });
  const results = await (frames ? builder : builder.exclude("iframe")).analyze();
  const serious = results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  expect(serious, `axe on ${state}`).toEqual([]);
}

export async function expectNoHorizontalOverflow(page: Page, state: string) {
  const { scrollWidth, clientWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
  }));
  expect(scrollWidth, `horizontal overflow on ${state}`).toBeLessThanOrEqual(clientWidth);
}

/** axe, overflow and a screenshot, for one named state of a page. */
export async function checkState(page: Page, state: string, options: { frames?: boolean } = {}) {
  await page.screenshot({ path: `${SCREENS}/${state}.png`, fullPage: true });
  await expectAccessible(page, state, options);
  await expectNoHorizontalOverflow(page, state);
}
