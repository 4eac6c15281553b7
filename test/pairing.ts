/** What the plugin sends to POST /sites/redeem (docs/api.md), for tests and the benchmark. */
export const PLUGIN_TOKEN = `swt_${"t".repeat(60)}`;
export const PLUGIN_SECRET = `sws_${"s".repeat(60)}`;

export const pluginRedeemBody = (url: string, code: string, extra: Record<string, unknown> = {}) => ({
  code,
  siteUrl: url,
  restUrl: `${url}/wp-json/`,
  token: PLUGIN_TOKEN,
  secret: PLUGIN_SECRET,
  plugin: { version: "1.0.0" },
  site: { name: "Example Blog", pageBuilder: "gutenberg" },
  ...extra,
});
