/**
 * What the app and the WordPress plugin must agree on, from the one file both read at runtime:
 * plugin/vocabulary.json (the plugin ships it and reads it with Sitewright_Vocabulary). The token scopes and their
 * plain words, page-builder ids and names, the features /info can report, the snapshot format, the limits both sides
 * enforce, the signed channel's refusals, and the items protocol: its ref kinds with their actions, fields and scopes,
 * the options it may change and the post types it reads and writes. Only SCOPES is spelled here too, because it is a
 * TypeScript type; lib/vocabulary.test.ts fails when it drifts from the file. Client-safe: no server imports.
 */
import vocabulary from "@/plugin/vocabulary.json" with { type: "json" };

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

/**
 * Each scope in plain words, as the plugin's Settings → Sitewright screen shows it (label = the checkbox) and as the
 * wizard, the site pages and the chat repeat it: one wording, so "tick 'Change the design'" names a real checkbox.
 */
export const SCOPE_WORDS: Readonly<Record<Scope, { label: string; explains: string }>> = vocabulary.scopeWords;

/** Where the plugin's permissions are changed after pairing, and the button that saves them. */
export const PERMISSIONS_PLACE: string = vocabulary.permissionsPlace;
export const SAVE_PERMISSIONS_BUTTON: string = vocabulary.savePermissionsButton;

/** Page builders the plugin detects (`/info`'s `pageBuilder`), in its order of preference, with display names. */
export const PAGE_BUILDERS: ReadonlyArray<{ id: string; name: string }> = vocabulary.pageBuilders;

/** What a person sees for a builder id; an id this app does not know yet is shown as it is. */
export function pageBuilderName(id: string | null | undefined): string {
  if (!id) return "Unknown";
  return PAGE_BUILDERS.find((builder) => builder.id === id)?.name ?? id;
}

/** What `/info`'s `features` can list: routes the plugin adds beyond core's. */
export const PLUGIN_FEATURES: readonly string[] = vocabulary.features;

/** The export format `GET /sitewright/v1/export` writes and `POST /sitewright/v1/import` reads. */
export const SNAPSHOT_FORMAT: string = vocabulary.snapshotFormat;

/**
 * signatureWindowMs: a signed request's timestamp may be this far from either clock (±300 s). exportMaxIds: post ids
 * per `GET /sitewright/v1/export`. customCssMaxBytes: bytes of CSS `POST /sitewright/v1/custom-css` accepts.
 * requestBodyMaxBytes: bytes of a JSON body the app's routes accept. chatMessageMaxBytes: bytes of text in one chat
 * message. itemsMaxBatch: refs or changes in one items request.
 */
export const LIMITS: Readonly<typeof vocabulary.limits> = vocabulary.limits;

/** The plugin's refusals on the signed channel, with their HTTP status. */
export const SIGNED_REQUEST_ERRORS: Readonly<typeof vocabulary.signedRequestErrors> = vocabulary.signedRequestErrors;
export type SignedRequestError = keyof typeof SIGNED_REQUEST_ERRORS;

/** One kind of the items protocol's refs (`kind:key`): what a change may do and carry, and the scopes it needs. */
export type ItemKindRules = {
  actions: readonly string[];
  fields: readonly string[];
  createFields?: readonly string[];
  readScope: string;
  writeScope: string;
};

/** The items protocol's ref kinds (`post`, `option`, `custom_css`, `menu`, `global_styles`, `template_part`). */
export const ITEM_KINDS: Readonly<Record<keyof typeof vocabulary.items.kinds, ItemKindRules>> = vocabulary.items.kinds;
export type ItemKind = keyof typeof ITEM_KINDS;

/** Fields of a post's state that a change may write (a creation also gives `type`). */
export const POST_FIELDS: readonly string[] = ITEM_KINDS.post.fields;

/** The options an `option:` ref may name, with what the owner calls each. */
export const OPTION_LABELS: Readonly<Record<string, string>> = vocabulary.items.options;

/** The only post types a `post:` ref may be (any other is refused by the plugin, whatever the token's scopes). */
export const ITEM_POST_TYPES: readonly string[] = vocabulary.items.postTypes;

/** Post types that are the site's design, not its content, with the contract's `kind` for each. */
export const DESIGN_POST_TYPES: Readonly<Record<string, string>> = vocabulary.items.designPostTypes;
