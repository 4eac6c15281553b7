/**
 * The bench's copy of the app (bench/lib/app.ts) must build on a fresh clone: every file it copies finds what it
 * imports from the repository among the copied files. On the main of issue 39 it did not: lib/vocabulary.ts imports
 * `@/plugin/vocabulary.json` (plugin/ was not copied), and playwright.kubernetes.config.ts was copied without the
 * playwright.config.ts it imports (a type error in `next build`).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot, sourceFiles } from "./app";

const IMPORT = /(?:^|[\s;])(?:import|export)\s[^"'`]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** The repository file an import names, when it names one (`@/…` or a relative path); undefined for packages. */
function resolveInRepo(from: string, specifier: string): string | undefined {
  let base: string;
  if (specifier.startsWith("@/")) base = specifier.slice(2);
  else if (specifier.startsWith(".")) base = path.join(path.dirname(from), specifier);
  else return undefined;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}.mjs`, `${base}/index.ts`, `${base}/index.tsx`]) {
    const full = path.join(repoRoot, candidate);
    if (existsSync(full) && statSync(full).isFile()) return path.normalize(candidate);
  }
  return `${path.normalize(base)} (not found)`;
}

describe("the bench's copy of the app", () => {
  const files = sourceFiles();
  const copied = new Set(files);

  it("holds every repository file its sources import", () => {
    const missing: string[] = [];
    for (const file of files) {
      if (!/\.(ts|tsx|mjs)$/.test(file)) continue;
      for (const match of readFileSync(path.join(repoRoot, file), "utf8").matchAll(IMPORT)) {
        const target = resolveInRepo(file, (match[1] ?? match[2])!);
        if (target && !copied.has(target)) missing.push(`${file} → ${target}`);
      }
    }
    expect(missing).toEqual([]);
    expect(copied.has("plugin/vocabulary.json")).toBe(true);
  });

  it("leaves out the test runners' configs and the tests", () => {
    const unwanted = files.filter((file) => /(^|\/)(vitest|playwright)[\w.-]*\.config\.ts$|\.test\.tsx?$/.test(file));
    expect(unwanted).toEqual([]);
    expect(copied.has("next.config.ts")).toBe(true);
    expect(copied.has("instrumentation.ts")).toBe(true);
  });
});
