import path from "node:path";
import { defineConfig } from "@playwright/test";
import { machineSlowdown, QUIET_TEST_TIMEOUT } from "./e2e/support/waits";

// Waits scale with the machine: a busy two-core machine (load above its cores) gets proportionally longer, up to 4x
// (e2e/support/waits.ts; a spec's longer journey takes `allowTest(ms)`, scaled the same way).
const slowdown = machineSlowdown();

// Debian's Chromium (Playwright must not download browsers here); the app runs from the production build behind
// https, started by e2e/global-setup.ts with a real WordPress and a real PostgreSQL.
export default defineConfig({
  testDir: "e2e",
  testMatch: "**/*.spec.ts",
  fullyParallel: false,
  workers: 1,
  // No retries: a test that passes only on its retry is a failure to fix, not a pass (the summary counts flaky tests
  // as failures). Chromium runs in a network namespace of its own (e2e/support/browser-network.ts), so the container
  // engine's bridges coming and going cannot abort its loads with ERR_NETWORK_CHANGED.
  retries: 0,
  timeout: Math.round(QUIET_TEST_TIMEOUT * slowdown),
  expect: { timeout: Math.round(15_000 * slowdown) },
  globalSetup: "./e2e/global-setup.ts",
  reporter: [["list"], ["json", { outputFile: ".cache/test-results/playwright.json" }]],
  use: {
    // A click or a fill waits this long for its element (visible, enabled) before it fails, saying which element: a
    // button that never becomes enabled fails within a minute or two, not at the end of the test's whole time-out.
    actionTimeout: Math.round(30_000 * slowdown),
    ignoreHTTPSErrors: true,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      // Debian's Chromium (CHROMIUM_PATH to change), in the namespace the global setup made when it could make one.
      executablePath: path.resolve(import.meta.dirname, "scripts/chromium-isolated.sh"),
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
  },
  outputDir: ".cache/test-results/playwright",
});
