/**
 * `npm run site:local [-- options]`: starts a local https WordPress with Sitewright Connector active, prints how to
 * reach it, and stops cleanly on Ctrl-C or SIGTERM. `--help` lists the options (scripts/site-local/args.ts).
 */
import { parseSiteLocalArgs, USAGE } from "./args";
import { startLocalSite } from "./index";

let command: ReturnType<typeof parseSiteLocalArgs>;
try {
  command = parseSiteLocalArgs(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
  process.exit(2);
}
if (command.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}

const site = await startLocalSite(command.options).catch((error: Error) => {
  // A refused combination (Elementor on 6.1) or a port in use: the reason, without a stack.
  process.stderr.write(`Could not start the local site: ${error.message}\n`);
  process.exit(1);
});

process.stdout.write(
  [
    `WordPress ${site.wordpress} is running at ${site.url}`,
    `  REST API:     ${site.restUrl}`,
    `  Admin:        ${site.url}/wp-admin/  (user ${site.adminUser}, password ${site.adminPassword})`,
    `  Sitewright:   ${site.url}/wp-admin/options-general.php?page=sitewright`,
    `  Plugins:      ${site.activePlugins.join(", ")}`,
    ...(command.options.seoStandIn ? ["  SEO:          the Yoast SEO stand-in (meta keys only) is active"] : []),
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
