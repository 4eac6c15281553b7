import { defineConfig } from "@playwright/test";
import base from "./playwright.config";

// The rehearsal journey on Kubernetes (issue 26): the same app, WordPress, model and specs as the sandbox run, with
// each sandbox a pod on the test cluster (scripts/test.sh exports its KUBECONFIG and SANDBOX_IMAGE). Run:
// npx playwright test -c playwright.kubernetes.config.ts
process.env.E2E_SANDBOX_DRIVER = "kubernetes";

export default defineConfig({
  ...base,
  testMatch: "**/rehearsal.sandbox-spec.ts",
  // The journey the issue names (rehearse in a pod, preview through Sitewright, apply, undo) and the drift refusal;
  // the rest of the rehearsal specs exercise the app above the driver, which the Podman run already covers.
  grep: /rehearses a change in a sandbox, previews it|refuses to apply over a person's edit/,
  reporter: [["list"], ["json", { outputFile: ".cache/test-results/playwright-kubernetes.json" }]],
  outputDir: ".cache/test-results/playwright-kubernetes",
  timeout: 2 * (base.timeout ?? 90_000),
});
