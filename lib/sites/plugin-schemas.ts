/**
 * What the plugin's own routes answer, parsed with zod wherever the app reads them (the plugin declares the same
 * shapes as REST schemas; plugin/tests/SchemaTest.php checks it declares every field it returns). Fields a newer
 * plugin adds are kept, not refused; a missing or mistyped field the app relies on is a `bad_response`.
 */
import { z } from "zod";
import { SiteRequestError } from "./client";

const checkStatus = z.enum(["pass", "warn", "fail"]);

export const preflightSchema = z.looseObject({
  status: checkStatus,
  checks: z.array(
    z.looseObject({
      id: z.string(),
      status: checkStatus,
      message: z.string(),
      fix: z.string(),
    }),
  ),
  checkedAt: z.string().optional(),
});
export type Preflight = z.infer<typeof preflightSchema>;

export const pluginInfoSchema = z.looseObject({
  name: z.string(),
  description: z.string().optional(),
  homeUrl: z.string(),
  restUrl: z.string(),
  wordpress: z.string(),
  php: z.string(),
  plugin: z.looseObject({ version: z.string() }).optional(),
  multisite: z.boolean().optional(),
  permalinks: z.boolean().optional(),
  theme: z.looseObject({
    name: z.string(),
    stylesheet: z.string(),
    template: z.string().optional(),
    version: z.string().optional(),
    isBlockTheme: z.boolean(),
  }),
  /** A builder id of lib/vocabulary.ts, or one a newer plugin knows. */
  pageBuilder: z.string(),
  pageBuilders: z.array(z.looseObject({ id: z.string(), name: z.string(), evidence: z.array(z.string()) })).default([]),
  activePlugins: z.array(z.string()).optional(),
  /** Routes the plugin adds beyond core's (lib/vocabulary.ts, PLUGIN_FEATURES). */
  features: z.array(z.string()).default([]),
  /** Page builders whose pages the plugin edits element by element (`elementor:<id>` items), with their versions. */
  builders: z.array(z.looseObject({ name: z.string(), version: z.string() })).default([]),
  token: z.looseObject({
    lastFour: z.string(),
    scopes: z.array(z.string()),
    createdAt: z.string().nullable().optional(),
    capabilities: z.array(z.string()),
  }),
});
export type PluginInfo = z.infer<typeof pluginInfoSchema>;

function parse<T>(schema: z.ZodType<T>, route: string, data: unknown): T {
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  const where = parsed.error.issues[0]?.path.join(".") || "the answer";
  throw new SiteRequestError(
    "bad_response",
    `The site's Sitewright plugin answered ${route} in a shape this app does not understand (${where}). Update the plugin.`,
    { reason: "schema", cause: parsed.error },
  );
}

/** `GET /sitewright/v1/info`'s answer, or a `bad_response` SiteRequestError. */
export const parsePluginInfo = (data: unknown): PluginInfo => parse(pluginInfoSchema, "/sitewright/v1/info", data);

/** `GET /sitewright/v1/preflight`'s answer, or a `bad_response` SiteRequestError. */
export const parsePreflight = (data: unknown): Preflight => parse(preflightSchema, "/sitewright/v1/preflight", data);
