import os from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";

// Waits scale with the machine: a busy two-core machine (load above its cores) gets proportionally longer, up to 4x.
const slowdown = Math.min(4, Math.max(1, (os.loadavg()[0] ?? 0) / os.cpus().length));

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
  timeout: Math.round(90_000 * slowdown),
  expect: { timeout: Math.round(15_000 * slowdown) },
  globalSetup: "./e2e/global-setup.ts",
  reporter: [["list"], ["json", { outputFile: ".cache/test-results/playwright.json" }]],
  use: {
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
