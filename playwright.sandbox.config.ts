import { defineConfig } from "@playwright/test";
import base from "./playwright.config";

// The sandbox specs (issue 13): the same app, WordPress and model as the other specs, with real Podman sandboxes
// on (global setup reads E2E_SANDBOX_DRIVER). Run: npx playwright test -c playwright.sandbox.config.ts
process.env.E2E_SANDBOX_DRIVER = "docker";

export default defineConfig({
  ...base,
  testMatch: "**/*.sandbox-spec.ts",
  reporter: [["list"], ["json", { outputFile: ".cache/test-results/playwright-sandbox.json" }]],
  outputDir: ".cache/test-results/playwright-sandbox",
  timeout: 2 * (base.timeout ?? 90_000),
});
