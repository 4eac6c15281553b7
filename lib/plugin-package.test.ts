import { readFileSync } from "node:fs";
import { join } from "node:path";
import { unzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { GET } from "@/app/plugin/sitewright-connector.zip/route";
import {
  buildPluginZip,
  PLUGIN_SLUG,
  pluginSourceDir,
  pluginVersion,
  shippedFiles,
  zipEntryNames,
} from "./plugin-package";

const zip = buildPluginZip();
const names = zipEntryNames(zip);
const files = names.filter((name) => !name.endsWith("/"));
const text = (name: string) => new TextDecoder().decode(unzipSync(zip)[name]);

describe("the plugin zip", () => {
  it("holds one top folder, sitewright-connector/, with the plugin's main file, uninstall.php and readme.txt", () => {
    expect(names.every((name) => name.startsWith(`${PLUGIN_SLUG}/`))).toBe(true);
    expect(files).toEqual(
      expect.arrayContaining([
        `${PLUGIN_SLUG}/sitewright-connector.php`,
        `${PLUGIN_SLUG}/uninstall.php`,
        `${PLUGIN_SLUG}/readme.txt`,
        `${PLUGIN_SLUG}/includes/class-sitewright-auth.php`,
        `${PLUGIN_SLUG}/includes/rest/class-sitewright-rest-info-controller.php`,
        `${PLUGIN_SLUG}/admin/class-sitewright-admin.php`,
      ]),
    );
    expect(files).toEqual(shippedFiles().map((path) => `${PLUGIN_SLUG}/${path}`));
  });

  it("ships vocabulary.json, which the plugin reads at runtime, byte for byte as the app reads it", () => {
    expect(files).toContain(`${PLUGIN_SLUG}/vocabulary.json`);
    expect(text(`${PLUGIN_SLUG}/vocabulary.json`)).toBe(
      readFileSync(join(pluginSourceDir(), "vocabulary.json"), "utf8"),
    );
    expect(text(`${PLUGIN_SLUG}/includes/class-sitewright-vocabulary.php`)).toContain("/vocabulary.json");
  });

  it("ships no tests, no *.dist rulesets, no development CLI and nothing hidden", () => {
    for (const name of files) {
      expect(name).not.toMatch(/\/tests\/|\/bin\/|\.dist$|phpcs|phpunit|\/\.|localhost|\.zip$/);
    }
    for (const name of files.filter((file) => file.endsWith(".php"))) {
      expect(text(name), name).not.toMatch(/https?:\/\/(localhost|127\.0\.0\.1)/);
    }
  });

  it("guards every PHP file it ships against direct access", () => {
    for (const name of files.filter((file) => file.endsWith(".php"))) {
      const guard = name.endsWith("/uninstall.php")
        ? "defined( 'WP_UNINSTALL_PLUGIN' ) || exit;"
        : "defined( 'ABSPATH' ) || exit;";
      expect(text(name), name).toContain(guard);
    }
  });

  it("has a WordPress.org readme.txt whose versions match the plugin's header, with an External services section", () => {
    const readme = text(`${PLUGIN_SLUG}/readme.txt`);
    for (const header of ["Contributors", "Tags", "Requires at least", "Tested up to", "Requires PHP", "License"]) {
      expect(readme).toMatch(new RegExp(`^${header}: \\S`, "m"));
    }
    expect(readme).toMatch(new RegExp(`^Stable tag: ${pluginVersion().replace(/\./g, "\\.")}$`, "m"));
    const main = readFileSync(join(pluginSourceDir(), "sitewright-connector.php"), "utf8");
    expect(main).toContain(`define( 'SITEWRIGHT_VERSION', '${pluginVersion()}' );`);
    expect(readme).toMatch(/^Requires at least: (\S+)$/m);
    expect(main).toContain(`Requires at least: ${/^Requires at least: (\S+)$/m.exec(readme)?.[1]}`);
    expect(main).toContain(`Requires PHP:      ${/^Requires PHP: (\S+)$/m.exec(readme)?.[1]}`);
    for (const section of [
      "Description",
      "Installation",
      "Frequently Asked Questions",
      "External services",
      "Changelog",
    ]) {
      expect(readme).toContain(`== ${section} ==`);
    }
    const external = readme.slice(readme.indexOf("== External services =="), readme.indexOf("== Changelog =="));
    expect(external).toContain("/sites/redeem");
    expect(external).toMatch(/Terms of use: https:\/\//);
    expect(external).toMatch(/Privacy policy: https:\/\//);
  });

  it("is byte-identical when built twice from the same files", () => {
    expect(Buffer.from(buildPluginZip()).equals(Buffer.from(zip))).toBe(true);
  });

  it("is served as an attachment by GET /plugin/sitewright-connector.zip", async () => {
    const response = await GET(new Request("http://localhost:3000/plugin/sitewright-connector.zip"));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/zip");
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="sitewright-connector.zip"');
    const served = new Uint8Array(await response.arrayBuffer());
    expect(zipEntryNames(served)).toEqual(names);
  });
});
