import path from "node:path";
import { defineConfig } from "vitest/config";
import SlowFirstSequencer from "./test/sequencer";

// Files run side by side: most of their time is spent waiting on WordPress, PostgreSQL and Podman, not on the two
// cores. Each file makes its own database, site, namespace and ports, so none shares a resource with another.
// VITEST_MAX_WORKERS=1 runs them one at a time (to tell a slow file from a slow machine).
const maxWorkers = Number(process.env.VITEST_MAX_WORKERS) || 2;

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    environment: "node",
    pool: "forks",
    maxWorkers,
    sequence: { sequencer: SlowFirstSequencer },
    include: ["**/*.test.ts"],
    // The Kubernetes suites (`*.k8s.test.ts`) need the test cluster: vitest.kubernetes.config.ts runs them.
    exclude: ["node_modules/**", "e2e/**", "plugin/**", ".next/**", ".cache/**", "**/*.k8s.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    setupFiles: ["test/setup.ts"],
    // A guard against a hang, not a measure of speed (figures come from `npm run bench`): a test that copies a site
    // into a sandbox takes 5–10 s on a quiet machine and up to 40 s at load 20 on two cores (docs/testing.md).
    testTimeout: 120_000,
    hookTimeout: 180_000,
    env: {
      NODE_ENV: "test",
      LOG_LEVEL: "silent",
      APP_URL: "http://localhost:3000",
      SESSION_SECRET: "test-session-secret-of-at-least-32-characters",
      ENCRYPTION_KEY: "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",
      SITE_HOST_ALLOWLIST: "localhost",
      AUTH_RATE_LIMIT: "1000",
      REDEEM_RATE_LIMIT: "1000",
      DATABASE_URL: "",
      OPENAI_API_KEY: "",
      SANDBOX_DRIVER: "",
    },
  },
});
