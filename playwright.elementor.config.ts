import { defineConfig } from "@playwright/test";
import base from "./playwright.config";

// An Elementor page edited from the chat (issue 36, docs/page-builders.md): WordPress 7.1 with Elementor 4.2.2
// active, started by e2e/global-setup.ts (SITEWRIGHT_WORDPRESS, SITEWRIGHT_E2E_PLUGINS). One site start of its
// own, so the other 7.1 specs keep a site without a page builder. Run: npx playwright test -c playwright.elementor.config.ts
process.env.SITEWRIGHT_WORDPRESS = "7.1";
process.env.SITEWRIGHT_E2E_PLUGINS = "elementor";

export default defineConfig({
  ...base,
  testMatch: "**/*.builder-spec.ts",
  reporter: [["list"], ["json", { outputFile: ".cache/test-results/playwright-elementor.json" }]],
  outputDir: ".cache/test-results/playwright-elementor",
});
