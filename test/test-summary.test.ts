/**
 * The suite's closing line (scripts/test-summary.mjs): a test that passed only on a retry counts as a failure, a
 * suite whose report is missing counts as one too, and the run's wall time is stated.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const vitestReport = { numPassedTests: 10, numFailedTests: 0, numPendingTests: 1, numTodoTests: 0, testResults: [] };
const playwrightReport = (flaky: number) => ({ stats: { expected: 5, unexpected: 0, flaky, skipped: 0 } });

/** Every report the summary expects, as a run with these Playwright figures would leave them. */
function results(flaky: number, leaveOut: string[] = []) {
  const dir = mkdtempSync(path.join(tmpdir(), "sitewright-summary-"));
  dirs.push(dir);
  const files: Record<string, unknown> = {
    "vitest.json": vitestReport,
    "vitest-kubernetes.json": vitestReport,
    "playwright.json": playwrightReport(flaky),
    "playwright-sandbox.json": playwrightReport(0),
    "playwright-kubernetes.json": playwrightReport(0),
    "playwright-7.1.json": playwrightReport(0),
    "playwright-elementor.json": playwrightReport(0),
  };
  for (const [name, body] of Object.entries(files)) {
    if (!leaveOut.includes(name)) writeFileSync(path.join(dir, name), JSON.stringify(body));
  }
  for (const name of ["phpunit.xml", "phpunit-7.1.xml"]) {
    writeFileSync(
      path.join(dir, name),
      '<testsuites><testsuite name="all" tests="4" failures="0" errors="0" skipped="0"></testsuite></testsuites>',
    );
  }
  writeFileSync(path.join(dir, "checks.txt"), "biome ok\nbuild ok\n");
  return dir;
}

function summarize(dir: string): { line: string; code: number } {
  try {
    const out = execFileSync(process.execPath, ["scripts/test-summary.mjs", dir], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, TEST_WALL_SECONDS: "2443" },
    });
    return { line: out.trim().split("\n").at(-1) ?? "", code: 0 };
  } catch (error) {
    const failed = error as { stdout: string; status: number };
    return { line: failed.stdout.trim().split("\n").at(-1) ?? "", code: failed.status };
  }
}

describe("the suite's summary line", () => {
  it("counts a test that passed only on a retry as a failure, and says how long the run took", () => {
    const clean = summarize(results(0));
    expect(clean.code).toBe(0);
    expect(clean.line).toMatch(/^Summary: \d+ passed, 0 failed, 2 skipped in 40 min 43 s$/);

    const flaky = summarize(results(1));
    expect(flaky.code).toBe(1);
    expect(flaky.line).toMatch(/^Summary: \d+ passed, 1 failed \(1 of them flaky\), 2 skipped in 40 min 43 s$/);
  });

  it("fails a run whose suite left no report", () => {
    const missing = summarize(results(0, ["playwright-sandbox.json"]));
    expect(missing.code).toBe(1);
    expect(missing.line).toMatch(/, 1 failed, /);
  });
});
