/**
 * `npm run site:local [-- --plain-permalinks] [-- --allow-http-service]`: starts a local https WordPress with
 * Sitewright Connector active, prints how to reach it, and stops cleanly on Ctrl-C or SIGTERM.
 */
import { startLocalSite } from "./index";

const args = new Set(process.argv.slice(2));
const site = await startLocalSite({
  permalinks: !args.has("--plain-permalinks"),
  allowHttpService: args.has("--allow-http-service"),
  sandbox: args.has("--sandbox"),
});

process.stdout.write(
  [
    `WordPress is running at ${site.url}`,
    `  REST API:     ${site.restUrl}`,
    `  Admin:        ${site.url}/wp-admin/  (user ${site.adminUser}, password ${site.adminPassword})`,
    `  Sitewright:   ${site.url}/wp-admin/options-general.php?page=sitewright`,
    `  Trust the CA: NODE_EXTRA_CA_CERTS=${site.caPath}`,
    `  Files:        ${site.wpPath}`,
    `  Credentials:  php plugin/bin/sitewright-cli.php --wp=${site.wpPath} create-credentials --scopes=site:read,content:read`,
    "Press Ctrl-C to stop.",
    "",
  ].join("\n"),
);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  process.stdout.write(`\n${signal}: stopping the local site...\n`);
  await site.stop();
  process.exit(0);
}
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
