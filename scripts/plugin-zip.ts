/**
 * `npm run plugin:zip [-- --out=path]`: writes sitewright-connector.zip (default: at the repository root) and lists
 * what it holds.
 */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { buildPluginZip, PLUGIN_ZIP_NAME, pluginVersion, zipEntryNames } from "../lib/plugin-package";

const outArg = process.argv.slice(2).find((arg) => arg.startsWith("--out="));
const out = resolve(outArg ? outArg.slice("--out=".length) : PLUGIN_ZIP_NAME);
const zip = buildPluginZip();
writeFileSync(out, zip);
const files = zipEntryNames(zip).filter((name) => !name.endsWith("/"));
console.log(`${out}: Sitewright Connector ${pluginVersion()}, ${files.length} files, ${zip.byteLength} bytes`);
for (const name of files) console.log(`  ${name}`);
