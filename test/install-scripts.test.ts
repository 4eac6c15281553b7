/**
 * What the README says of npm's install-script warning ("Quick start", Install scripts) holds for the installed
 * tree: every dependency with an install script is reviewed in `allowScripts` (so `npm install` ends without the
 * "not yet covered by allowScripts" warning), each denied script was skipped, and what the app uses still works.
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");
const run = promisify(execFile);
const manifest = (name: string) =>
  JSON.parse(readFileSync(path.join(root, "node_modules", name, "package.json"), "utf8")) as {
    scripts?: Record<string, string>;
  };
const allowScripts = (
  JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
    allowScripts: Record<string, boolean>;
  }
).allowScripts;

describe("install scripts", () => {
  it("are all reviewed: npm finds none that allowScripts does not cover", { timeout: 150_000 }, async () => {
    const { stdout } = await run("npm", ["install-scripts", "ls"], { cwd: root, timeout: 120_000 });
    expect(stdout.trim()).toBe("No packages with unreviewed install scripts.");
  });

  it("names only dependencies that have one, each denied", () => {
    for (const [name, allowed] of Object.entries(allowScripts)) {
      const scripts = manifest(name).scripts ?? {};
      expect(
        ["preinstall", "install", "postinstall"].some((hook) => hook in scripts),
        name,
      ).toBe(true);
      expect(allowed, name).toBe(false);
    }
  });

  it("were skipped, as the README says, and esbuild works without its own", () => {
    // cpu-features' script writes buildcheck.gypi and compiles build/; esbuild's swaps bin/esbuild for the binary.
    expect(existsSync(path.join(root, "node_modules/cpu-features/buildcheck.gypi"))).toBe(false);
    expect(existsSync(path.join(root, "node_modules/cpu-features/build"))).toBe(false);
    expect(
      readFileSync(path.join(root, "node_modules/esbuild/bin/esbuild"), "utf8").startsWith("#!/usr/bin/env node"),
    ).toBe(true);
    const esbuild = createRequire(import.meta.url)("esbuild") as typeof import("esbuild");
    expect(esbuild.transformSync("let a: number = 1", { loader: "ts" }).code.trim()).toBe("let a = 1;");
  });
});
