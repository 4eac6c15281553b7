// Adds up the suites' machine-readable reports into one closing line: "Summary: N passed, N failed, N skipped".
// A suite whose report is missing counts as a failure: it did not run.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

const dir = process.argv[2] ?? ".cache/test-results";
const totals = { passed: 0, failed: 0, skipped: 0, flaky: 0 };
const missing = [];

const read = (name) => {
  const file = path.join(dir, name);
  if (!existsSync(file)) {
    missing.push(name);
    return undefined;
  }
  return readFileSync(file, "utf8");
};

// vitest's two runs: the main suites, and the Kubernetes suites on the test cluster (vitest.kubernetes.config.ts).
for (const [file, label] of [
  ["vitest.json", "vitest"],
  ["vitest-kubernetes.json", "vitest (Kubernetes)"],
]) {
  const text = read(file);
  if (!text) continue;
  const report = JSON.parse(text);
  totals.passed += report.numPassedTests;
  // numFailedTestSuites counts describe blocks too; a file that failed to load has no failed test, so count files.
  const failedFiles = (report.testResults ?? []).filter((result) => result.status === "failed").length;
  totals.failed += report.numFailedTests + (failedFiles > 0 && report.numFailedTests === 0 ? failedFiles : 0);
  totals.skipped += report.numPendingTests + (report.numTodoTests ?? 0);
  console.log(
    `${label}: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${failedFiles} files failed`,
  );
}

// The plugin's PHPUnit suite, once per WordPress version (scripts/check-plugin.sh).
for (const [file, label] of [
  ["phpunit.xml", "phpunit (WordPress 6.1)"],
  ["phpunit-7.1.xml", "phpunit (WordPress 7.1)"],
]) {
  const phpunit = read(file);
  if (!phpunit) continue;
  const suite = /<testsuite\b[^>]*>/.exec(phpunit)?.[0] ?? "";
  const attr = (name) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(suite)?.[1] ?? 0);
  const failed = attr("failures") + attr("errors");
  const skipped = attr("skipped");
  const passed = attr("tests") - failed - skipped;
  totals.passed += passed;
  totals.failed += failed;
  totals.skipped += skipped;
  console.log(`${label}: ${passed} passed, ${failed} failed, ${skipped} skipped`);
}

// The rehearsal journey on Kubernetes is expected once its config exists (scripts/test.sh, kubernetes_journey).
const kubernetesJourney = existsSync("playwright.kubernetes.config.ts")
  ? [["playwright-kubernetes.json", "playwright (Kubernetes)"]]
  : [];
for (const [file, label] of [
  ["playwright.json", "playwright"],
  ["playwright-sandbox.json", "playwright (sandboxes)"],
  ["playwright-7.1.json", "playwright (WordPress 7.1)"],
  ["playwright-elementor.json", "playwright (WordPress 7.1 with Elementor)"],
  ...kubernetesJourney,
]) {
  const report = read(file);
  if (!report) continue;
  const { stats } = JSON.parse(report);
  // A test that passed only on a retry is flaky: a failure to fix, never a pass (the configs retry nothing, so this
  // counts runs made with --retries by hand too).
  totals.passed += stats.expected;
  totals.failed += stats.unexpected + stats.flaky;
  totals.flaky += stats.flaky;
  totals.skipped += stats.skipped;
  console.log(
    `${label}: ${stats.expected} passed, ${stats.unexpected} failed, ${stats.flaky} flaky (failed first), ${stats.skipped} skipped`,
  );
}

// Checks that are not test runners (lint and format, the build's type check): one pass or failure each.
const checks = existsSync(path.join(dir, "checks.txt")) ? readFileSync(path.join(dir, "checks.txt"), "utf8") : "";
for (const line of checks.split("\n").filter(Boolean)) {
  const [name, outcome] = line.split(" ");
  if (outcome === "ok") totals.passed += 1;
  else totals.failed += 1;
  console.log(`check ${name}: ${outcome}`);
}

for (const name of missing) console.log(`missing report: ${name} (that suite did not run)`);
if (missing.length) totals.failed += missing.length;
// The run's wall time, from scripts/test.sh (SECONDS at the end): the figure docs/performance.md keeps per run.
const wall = Number(process.env.TEST_WALL_SECONDS);
const took = Number.isFinite(wall) && wall > 0 ? ` in ${Math.floor(wall / 60)} min ${wall % 60} s` : "";
const flaky = totals.flaky ? ` (${totals.flaky} of them flaky)` : "";
console.log(`Summary: ${totals.passed} passed, ${totals.failed} failed${flaky}, ${totals.skipped} skipped${took}`);
process.exit(totals.failed > 0 ? 1 : 0);
