/**
 * The plugin as a site owner installs it: `sitewright-connector.zip`, one top folder `sitewright-connector/`, holding
 * only what ships (the plugin's PHP, vocabulary.json, readme.txt, translations). Tests, rulesets (`*.dist`) and the development CLI
 * stay out. Built from `plugin/` once per process for `GET /plugin/sitewright-connector.zip`, and by
 * `npm run plugin:zip` (scripts/plugin-zip.ts) for a file.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { unzipSync, type Zippable, zipSync } from "fflate";
import { processState } from "@/lib/process-state";

export const PLUGIN_SLUG = "sitewright-connector";
export const PLUGIN_ZIP_NAME = `${PLUGIN_SLUG}.zip`;

/** Top-level files that ship. */
const SHIPPED_FILES = new Set([
  "sitewright-connector.php",
  "uninstall.php",
  "readme.txt",
  "index.php",
  "vocabulary.json",
]);
/** Folders that ship, and what may ship inside them. */
const SHIPPED_DIRS = new Set(["includes", "admin", "languages", "assets"]);
const SHIPPED_EXTENSIONS = /\.(php|txt|json|css|js|svg|png|jpg|mo|po|pot|l10n\.php)$/;

/** Every zip entry gets this time, so two builds of the same files are byte-identical. */
const FIXED_MTIME = new Date("2026-01-01T00:00:00Z");

/**
 * The plugin directory of this checkout (`plugin/` at the app's root). The app reads it at runtime, so it must sit
 * next to the app (as with `npm start` in the repository); a standalone deployment copies `plugin/` along.
 */
export function pluginSourceDir(): string {
  return join(/*turbopackIgnore: true*/ process.cwd(), "plugin");
}

/** Paths (relative to the plugin directory, `/`-separated, sorted) of the files that ship. */
export function shippedFiles(dir = pluginSourceDir()): string[] {
  const files: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(/*turbopackIgnore: true*/ at, { withFileTypes: true })) {
      if (entry.name.startsWith(".")) continue;
      const full = join(/*turbopackIgnore: true*/ at, entry.name);
      const path = relative(dir, full).split(sep).join("/");
      const top = path.split("/")[0] as string;
      if (entry.isDirectory()) {
        if (SHIPPED_DIRS.has(top)) walk(full);
      } else if (entry.isFile()) {
        const shipped = path === top ? SHIPPED_FILES.has(path) : SHIPPED_DIRS.has(top) && SHIPPED_EXTENSIONS.test(path);
        if (shipped) files.push(path);
      }
    }
  };
  walk(dir);
  return files.sort();
}

/** The plugin's version from its main file's header. */
export function pluginVersion(dir = pluginSourceDir()): string {
  const header = readFileSync(
    /*turbopackIgnore: true*/ join(/*turbopackIgnore: true*/ dir, "sitewright-connector.php"),
    "utf8",
  );
  return /^\s*\*\s*Version:\s*(\S+)/m.exec(header)?.[1] ?? "0.0.0";
}

/** Builds the zip: `sitewright-connector/` and the shipped files under it, deflated, with fixed times. */
export function buildPluginZip(dir = pluginSourceDir()): Uint8Array {
  const entries: Zippable = {};
  const folders = new Set<string>([`${PLUGIN_SLUG}/`]);
  for (const path of shippedFiles(dir)) {
    const parts = path.split("/");
    for (let depth = 1; depth < parts.length; depth += 1) {
      folders.add(`${PLUGIN_SLUG}/${parts.slice(0, depth).join("/")}/`);
    }
    if (!statSync(/*turbopackIgnore: true*/ join(/*turbopackIgnore: true*/ dir, path)).isFile()) continue;
    entries[`${PLUGIN_SLUG}/${path}`] = [
      readFileSync(/*turbopackIgnore: true*/ join(/*turbopackIgnore: true*/ dir, path)),
      { level: 9, mtime: FIXED_MTIME },
    ];
  }
  for (const folder of folders) entries[folder] = [new Uint8Array(0), { level: 0, mtime: FIXED_MTIME }];
  return zipSync(entries);
}

/** The names inside a zip, in order (folders end with `/`). */
export function zipEntryNames(zip: Uint8Array): string[] {
  return Object.keys(unzipSync(zip));
}

/** The zip the app serves: built from `plugin/` on first request, then kept for the life of the process. */
export function servedPluginZip(): { bytes: Uint8Array; version: string } {
  return processState("plugin-package.zip", () => ({ bytes: buildPluginZip(), version: pluginVersion() }));
}
