/**
 * The Kubernetes suites (`*.k8s.test.ts`): the same setup as vitest.config.ts, against the test cluster that
 * scripts/setup/kubernetes.sh starts. scripts/test.sh runs them with the cluster's KUBECONFIG and SANDBOX_IMAGE
 * set; a suite without them fails, it never skips.
 */
import { defineConfig } from "vitest/config";
import base from "./vitest.config";

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ["**/*.k8s.test.ts"],
    exclude: ["node_modules/**", "e2e/**", "plugin/**", ".next/**", ".cache/**"],
    // One cluster with one small node: suites run one after another.
    fileParallelism: false,
    testTimeout: 120_000,
    env: { ...base.test?.env, SANDBOX_DRIVER: "kubernetes", SANDBOX_IMAGE: process.env.SANDBOX_IMAGE ?? "" },
  },
});
