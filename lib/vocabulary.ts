/**
 * What the app and the WordPress plugin must agree on: the token scopes, page-builder ids and their names, the
 * features /info can report, the snapshot format, the limits both sides enforce and the signed channel's refusals.
 * test/vectors/vocabulary.json holds the same facts; lib/vocabulary.test.ts and plugin/tests/VocabularyTest.php
 * load it and fail on any drift. Client-safe: no server imports.
 */

/** The plugin's token scopes (docs/signing.md), in canonical order. */
export const SCOPES = [
  "site:read",
  "content:read",
  "content:write",
  "media:write",
  "design:write",
  "settings:write",
] as const;
export type Scope = (typeof SCOPES)[number];

/** Page builders the plugin detects (`/info`'s `pageBuilder`), in its order of preference, with display names. */
export const PAGE_BUILDERS = [
  { id: "elementor", name: "Elementor" },
  { id: "divi", name: "Divi" },
  { id: "beaver-builder", name: "Beaver Builder" },
  { id: "bricks", name: "Bricks" },
  { id: "oxygen", name: "Oxygen" },
  { id: "wpbakery", name: "WPBakery" },
  { id: "classic-editor", name: "Classic editor" },
  { id: "gutenberg", name: "Block editor (Gutenberg)" },
] as const;
export type PageBuilderId = (typeof PAGE_BUILDERS)[number]["id"];

/** What a person sees for a builder id; an id this app does not know yet is shown as it is. */
export function pageBuilderName(id: string | null | undefined): string {
  if (!id) return "Unknown";
  return PAGE_BUILDERS.find((builder) => builder.id === id)?.name ?? id;
}

/** What `/info`'s `features` can list: routes the plugin adds beyond core's. */
export const PLUGIN_FEATURES = ["custom_css", "media_upload"] as const;
export type PluginFeature = (typeof PLUGIN_FEATURES)[number];

/** The export format `GET /sitewright/v1/export` writes and `POST /sitewright/v1/import` reads. */
export const SNAPSHOT_FORMAT = "sitewright-snapshot/1";

export const LIMITS = {
  /** A signed request's timestamp may be this far from either clock (±300 s). */
  signatureWindowMs: 300_000,
  /** Post ids per `GET /sitewright/v1/export`. */
  exportMaxIds: 200,
  /** Bytes of CSS `POST /sitewright/v1/custom-css` accepts. */
  customCssMaxBytes: 64 * 1024,
  /** Bytes of a JSON body the app's routes accept. */
  requestBodyMaxBytes: 64 * 1024,
  /** Bytes of text in one chat message. */
  chatMessageMaxBytes: 8 * 1024,
} as const;

/** The plugin's refusals on the signed channel, with their HTTP status. */
export const SIGNED_REQUEST_ERRORS = {
  sitewright_bad_token: 401,
  sitewright_bad_signature: 401,
  sitewright_stale_timestamp: 401,
  sitewright_replayed: 401,
  sitewright_method_override: 400,
  sitewright_scope: 403,
  sitewright_replay_cache_unavailable: 503,
} as const;
export type SignedRequestError = keyof typeof SIGNED_REQUEST_ERRORS;
