/**
 * The command line of `npm run site:local`: parsed without starting anything, so `--help` and mistakes answer at
 * once (scripts/site-local/cli.ts runs it).
 */
import { type LocalPlugin, type LocalSiteOptions, WORDPRESS_VERSIONS, type WordPressVersion } from "./index";

export const USAGE = `Usage: npm run site:local -- [options]

Starts a local WordPress over https with Sitewright Connector active, prints its address and admin login, and
stops it on Ctrl-C. Nothing is kept after it stops.

Options:
  --wordpress 6.1|7.1    WordPress version (default: $SITEWRIGHT_WORDPRESS, else 6.1)
  --builder elementor    also install and activate Elementor 4.2.2 (needs --wordpress 7.1)
  --seo-stand-in         a tiny must-use plugin standing in for Yoast SEO (its version constant and meta keys),
                         so SEO operations can be tried; without it, SEO operations need a real SEO plugin
  --port N               the https port (default: a free one)
  --plain-permalinks     no pretty permalinks: the REST API answers only at ?rest_route=
  --allow-http-service   let the plugin pair with a Sitewright service over plain http on localhost
  --sandbox              declare the site a sandbox (allows POST /sitewright/v1/import)
  --help                 print this and exit
`;

export type SiteLocalCommand = { help: true } | { help: false; options: LocalSiteOptions };

const BUILDERS: Record<string, LocalPlugin> = { elementor: "elementor" };

/** The flags that take no value, and the option each sets. */
const SWITCHES: Record<string, (options: LocalSiteOptions) => void> = {
  "--plain-permalinks": (options) => {
    options.permalinks = false;
  },
  "--allow-http-service": (options) => {
    options.allowHttpService = true;
  },
  "--sandbox": (options) => {
    options.sandbox = true;
  },
  "--seo-stand-in": (options) => {
    options.seoStandIn = true;
  },
};

/** The flags that take a value (`--flag value` or `--flag=value`), and how each sets its option. */
const VALUED: Record<string, (options: LocalSiteOptions, value: string) => void> = {
  "--port": (options, value) => {
    const port = Number(value);
    if (!/^\d+$/.test(value) || port < 1 || port > 65535) throw new Error(`--port: ${value} is not a port (1-65535)`);
    options.port = port;
  },
  "--wordpress": (options, value) => {
    const version = WORDPRESS_VERSIONS.find((known) => known === value);
    if (!version) throw new Error(`--wordpress: ${value} is not one of ${WORDPRESS_VERSIONS.join(", ")}`);
    options.wordpress = version as WordPressVersion;
  },
  "--builder": (options, value) => {
    const plugin = BUILDERS[value];
    if (!plugin) throw new Error(`--builder: ${value} is not one of ${Object.keys(BUILDERS).join(", ")}`);
    options.plugins = [...new Set([...(options.plugins ?? []), plugin])];
  },
};

/** Parses the arguments after `--`; throws an Error whose message says what is wrong (the CLI prints it). */
export function parseSiteLocalArgs(argv: string[]): SiteLocalCommand {
  if (argv.includes("--help") || argv.includes("-h")) return { help: true };
  const options: LocalSiteOptions = {};
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index] as string;
    const [flag, inline] = arg.includes("=")
      ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
      : [arg];
    const toggle = SWITCHES[flag as string];
    const setter = VALUED[flag as string];
    if (toggle && inline === undefined) {
      toggle(options);
    } else if (setter) {
      if (inline === undefined) index += 1;
      const value = inline ?? argv[index];
      if (value === undefined || value.startsWith("--")) throw new Error(`${flag} needs a value`);
      setter(options, value);
    } else {
      throw new Error(`Unknown option ${arg}`);
    }
  }
  return { help: false, options };
}
