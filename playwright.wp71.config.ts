import { defineConfig } from "@playwright/test";
import base from "./playwright.config";

// The main journey on WordPress 7.1 (docs/wordpress-versions.md): the same specs as on 6.1, against a local site
// started by e2e/global-setup.ts on 7.1 (SITEWRIGHT_WORDPRESS, read by scripts/site-local). Pair, edit, approve,
// verify on the live page, undo, and a block-theme design change on 7.1's default theme.
process.env.SITEWRIGHT_WORDPRESS = "7.1";

export default defineConfig({
  ...base,
  testMatch: ["pairing.spec.ts", "changes.spec.ts", "verification.spec.ts", "block-theme.spec.ts"],
  reporter: [["list"], ["json", { outputFile: ".cache/test-results/playwright-7.1.json" }]],
  outputDir: ".cache/test-results/playwright-7.1",
});
