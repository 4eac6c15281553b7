/**
 * Copies a subset of a paired live site into a sandbox through the plugin: `GET /sitewright/v1/export` on the
 * source (the chosen posts/pages and what they depend on: menus, media as URLs, whitelisted options, theme mods,
 * custom CSS, global styles; never users, tokens or secrets), media URLs rewritten to the service's media proxy,
 * then `POST /sitewright/v1/import` on the sandbox. Returns the manifest items (ids on both sides, checksums, and
 * for what a rehearsal may apply back, the live ref and its version: posts, pages, navigation, title and tagline,
 * and when the sandbox runs the live theme, its Additional CSS, global styles and template parts).
 */
import { createHash } from "node:crypto";
import { AppError } from "@/lib/errors";
import type { SandboxManifestItem } from "@/lib/db/schema";
import { readItems } from "@/lib/sites/items";
import type { SiteClient } from "@/lib/sites/types";
import { canonicalJson } from "@/lib/canonical-json";
import { LIMITS, SNAPSHOT_FORMAT } from "@/lib/vocabulary";

export { SNAPSHOT_FORMAT };
/** The plugin's export limit per request. */
export const MAX_SUBSET_IDS = LIMITS.exportMaxIds;

type SnapshotPost = { id: number; type: string; title?: string; [key: string]: unknown };
type SnapshotMedia = { id: number; url: string; mimeType?: string; title?: string; [key: string]: unknown };
type SnapshotMenu = { id: number; name?: string; [key: string]: unknown };
export type Snapshot = {
  format: string;
  source?: { homeUrl?: string; name?: string };
  posts?: SnapshotPost[];
  skipped?: number[];
  media?: SnapshotMedia[];
  menus?: SnapshotMenu[];
  options?: Record<string, unknown>;
  themeMods?: Record<string, unknown>;
  customCss?: string;
  globalStyles?: string;
  [key: string]: unknown;
};
type ImportResult = {
  imported?: Record<string, number>;
  idMap?: Record<string, number>;
  /** The theme the sandbox runs after the import (plugins before 1.1 do not say). */
  theme?: string;
  warnings?: string[];
};

export type SubsetResult = {
  items: SandboxManifestItem[];
  sourceUrl: string | null;
  /** The origin's uploads base URL (ends with `/`): the only place the media proxy fetches from. */
  sourceUploadsUrl: string | null;
  warnings: string[];
};

const checksum = (value: unknown) => createHash("sha256").update(canonicalJson(value)).digest("hex");

/** `https://x/wp-content/uploads/2024/05/a.jpg` → `https://x/wp-content/uploads/`; else the home URL's default. */
export function uploadsBaseUrl(snapshot: Snapshot): string | null {
  for (const item of snapshot.media ?? []) {
    const match = /^(https?:\/\/[^?#]*?\/wp-content\/uploads\/)/.exec(item.url ?? "");
    if (match?.[1]) return match[1];
  }
  const home = snapshot.source?.homeUrl;
  return home ? `${home.replace(/\/+$/, "")}/wp-content/uploads/` : null;
}

/** Every string in the snapshot with the origin's uploads base replaced by the proxy's (plain and JSON-escaped). */
export function rewriteMediaUrls<T>(value: T, fromBase: string, toBase: string): T {
  const escapedFrom = fromBase.replaceAll("/", "\\/");
  const escapedTo = toBase.replaceAll("/", "\\/");
  const walk = (node: unknown): unknown => {
    if (typeof node === "string") return node.replaceAll(fromBase, toBase).replaceAll(escapedFrom, escapedTo);
    if (Array.isArray(node)) return node.map(walk);
    if (node && typeof node === "object") {
      return Object.fromEntries(Object.entries(node as Record<string, unknown>).map(([k, v]) => [k, walk(v)]));
    }
    return node;
  };
  return walk(value) as T;
}

/** Options a rehearsal may change and apply (a few of the items route's: OPTION_LABELS in lib/vocabulary.ts). */
export const LIVE_OPTIONS = ["blogname", "blogdescription"] as const;
const ITEMS_BATCH = LIMITS.itemsMaxBatch;

/**
 * The live site's current item versions (the items route's client, lib/sites/items.ts), by ref. A plugin without that
 * route gives none: such items can be rehearsed but not applied (apply says so).
 */
export async function readLiveVersions(source: SiteClient, refs: string[]): Promise<Map<string, string | null>> {
  const versions = new Map<string, string | null>();
  for (let start = 0; start < refs.length; start += ITEMS_BATCH) {
    const chunk = refs.slice(start, start + ITEMS_BATCH);
    try {
      for (const item of await readItems(source, chunk)) versions.set(item.ref, item.version);
    } catch {
      // An older plugin (no items route) or an item it will not show: no version, so no apply for it.
    }
  }
  return versions;
}

/** A design item of the live site a rehearsal may change and apply: keyed by theme or slug, the same on both sides. */
type DesignRef = { ref: string; kind: "global_styles" | "custom_css" | "template_part"; title: string };

/**
 * The live site's design items, named as the items route names them: the theme's Additional CSS and, on a block
 * theme, its global styles and template parts. Their refs hold no ids, so they are the same in a sandbox that runs
 * the same theme.
 */
async function liveDesignRefs(source: SiteClient): Promise<{ stylesheet: string | null; refs: DesignRef[] }> {
  const info = await source
    .get<{ theme?: { stylesheet?: unknown; isBlockTheme?: unknown } }>("/sitewright/v1/info")
    .catch(() => undefined);
  const stylesheet = info?.data?.theme?.stylesheet;
  if (typeof stylesheet !== "string" || !/^[A-Za-z0-9_-]{1,100}$/.test(stylesheet))
    return { stylesheet: null, refs: [] };
  const refs: DesignRef[] = [{ ref: `custom_css:${stylesheet}`, kind: "custom_css", title: "Additional CSS" }];
  if (info?.data?.theme?.isBlockTheme !== true) return { stylesheet, refs };
  refs.push({ ref: `global_styles:${stylesheet}`, kind: "global_styles", title: "Global styles" });
  const parts = await source
    .get<Array<{ slug?: unknown; theme?: unknown; title?: { raw?: unknown } }>>("/wp/v2/template-parts", {
      context: "edit",
      _fields: "slug,theme,title",
    })
    .catch(() => undefined);
  for (const part of Array.isArray(parts?.data) ? parts.data : []) {
    if (part.theme !== stylesheet || typeof part.slug !== "string" || !/^[a-z0-9][a-z0-9_-]{0,99}$/i.test(part.slug))
      continue;
    const title = typeof part.title?.raw === "string" && part.title.raw ? part.title.raw : part.slug;
    refs.push({ ref: `template_part:${part.slug}`, kind: "template_part", title });
  }
  return { stylesheet, refs };
}

/** Ids to copy when the user named none: the published pages (up to 50) and the ten latest posts. */
async function defaultSubsetIds(source: SiteClient): Promise<number[]> {
  const ids = async (route: string, perPage: number) => {
    const response = await source.get<Array<{ id: number }>>(route, {
      per_page: perPage,
      status: "publish",
      _fields: "id",
    });
    return Array.isArray(response.data) ? response.data.map((item) => Number(item.id)).filter(Number.isInteger) : [];
  };
  return [...(await ids("/wp/v2/pages", 50)), ...(await ids("/wp/v2/posts", 10))];
}

/** Manifest items of a snapshot's posts (with the live versions) and media. */
function contentItems(
  exported: Snapshot,
  mapped: (id: number) => number | null,
  versions: Map<string, string | null>,
): SandboxManifestItem[] {
  return [
    ...(exported.posts ?? []).map((post) => ({
      kind: post.type,
      sourceId: post.id,
      sandboxId: mapped(post.id),
      checksum: checksum(post),
      title: typeof post.title === "string" ? post.title : undefined,
      liveRef: `post:${post.id}`,
      liveVersion: versions.get(`post:${post.id}`) ?? null,
    })),
    ...(exported.media ?? []).map((media) => ({
      kind: "attachment",
      sourceId: media.id,
      sandboxId: mapped(media.id),
      checksum: checksum(media),
      title: media.url,
    })),
  ];
}

async function exportFrom(source: SiteClient, ids: number[]): Promise<Snapshot> {
  const exported = (await source.get<Snapshot>("/sitewright/v1/export", { ids: ids.join(",") })).data;
  if (!exported || exported.format !== SNAPSHOT_FORMAT) {
    throw new AppError(
      "site_rejected",
      "The site's plugin sent an export Sitewright does not understand. Update the plugin.",
      { details: { format: exported?.format ?? null } },
    );
  }
  return exported;
}

/**
 * Copies more posts or pages into a sandbox that already holds a copy (sandbox mode, when the agent looks for
 * something the first copy did not bring: a draft, an older post). Only content travels: posts not copied before
 * and the media they reference that is not there yet. Menus, settings, theme and styles are left alone, so nothing
 * the rehearsal changed in the sandbox is overwritten. Returns the new manifest items.
 */
export async function pullIntoSandbox(input: {
  source: SiteClient;
  target: SiteClient;
  ids: number[];
  /** The posts and media the sandbox already holds: live id → sandbox id. */
  copied: { posts: Map<number, number>; media: Map<number, number> };
  mediaBaseUrl: string;
  uploadsBaseUrl: string | null;
}): Promise<{ items: SandboxManifestItem[]; warnings: string[] }> {
  const ids = [...new Set(input.ids)].filter((id) => !input.copied.posts.has(id)).slice(0, MAX_SUBSET_IDS);
  if (ids.length === 0) return { items: [], warnings: [] };
  const versions = await readLiveVersions(
    input.source,
    ids.map((id) => `post:${id}`),
  );
  const exported = await exportFrom(input.source, ids);
  const content: Snapshot = {
    format: exported.format,
    ...(exported.source ? { source: exported.source } : {}),
    knownIds: Object.fromEntries([...input.copied.posts, ...input.copied.media]),
    posts: (exported.posts ?? []).filter((post) => !input.copied.posts.has(post.id)),
    media: (exported.media ?? []).filter((media) => !input.copied.media.has(media.id)),
  };
  if ((content.posts ?? []).length === 0) return { items: [], warnings: [] };
  const uploads = input.uploadsBaseUrl ?? uploadsBaseUrl(exported);
  const toImport = uploads ? rewriteMediaUrls(content, uploads, input.mediaBaseUrl) : content;
  if (toImport.source && exported.source) toImport.source.homeUrl = exported.source.homeUrl;
  const target = await input.target;
  const result = (await target.post<ImportResult>("/sitewright/v1/import", toImport)).data ?? {};
  const idMap = result.idMap ?? {};
  const mapped = (id: number) => (idMap[String(id)] === undefined ? null : Number(idMap[String(id)]));
  return { items: contentItems(content, mapped, versions), warnings: result.warnings ?? [] };
}

type LiveDesign = Awaited<ReturnType<typeof liveDesignRefs>>;

/**
 * Manifest items of the site-wide parts: options, theme mods, and the CSS and global styles when they cannot apply
 * back (another theme), as plain checksums; the design items with their live versions when the theme is the same.
 */
function siteWideItems(
  exported: Snapshot,
  design: LiveDesign,
  sameTheme: boolean,
  versions: Map<string, string | null>,
): SandboxManifestItem[] {
  const items: SandboxManifestItem[] = [];
  for (const [kind, value] of [
    ["options", exported.options],
    ["theme_mods", exported.themeMods],
    ["custom_css", exported.customCss],
    ["global_styles", exported.globalStyles],
  ] as const) {
    if (sameTheme && (kind === "custom_css" || kind === "global_styles")) continue;
    if (value !== undefined && value !== null && value !== "")
      items.push({ kind, sourceId: null, sandboxId: null, checksum: checksum(value) });
  }
  if (!sameTheme) return items;
  const designValue: Record<DesignRef["kind"], unknown> = {
    custom_css: exported.customCss,
    global_styles: exported.globalStyles,
    template_part: undefined,
  };
  for (const item of design.refs) {
    const key = item.ref.slice(item.ref.indexOf(":") + 1);
    items.push({
      kind: item.kind,
      sourceId: key,
      sandboxId: key,
      checksum: checksum(designValue[item.kind] ?? null),
      title: item.title,
      liveRef: item.ref,
      liveVersion: versions.get(item.ref) ?? null,
    });
  }
  return items;
}

/** Manifest items of the options a rehearsal may change and apply back (LIVE_OPTIONS), with their live versions. */
function liveOptionItems(exported: Snapshot, versions: Map<string, string | null>): SandboxManifestItem[] {
  return LIVE_OPTIONS.flatMap((name) => {
    const value = exported.options?.[name];
    if (value === undefined) return [];
    return [
      {
        kind: "option",
        sourceId: name,
        sandboxId: name,
        checksum: checksum(value),
        title: name,
        liveRef: `option:${name}`,
        liveVersion: versions.get(`option:${name}`) ?? null,
      },
    ];
  });
}

/** Copies the posts and pages `ids` (none given: the default subset) from `source` into the sandbox `target`. */
export async function copySubset(input: {
  source: SiteClient;
  /** The sandbox's client, or its promise: the source is read meanwhile (a cold start's copy runs beside it). */
  target: SiteClient | Promise<SiteClient>;
  ids?: number[];
  /** The proxy base for this sandbox's media, ending with `/`. */
  mediaBaseUrl: string;
}): Promise<SubsetResult> {
  const chosen = input.ids?.length ? input.ids : await defaultSubsetIds(input.source);
  const ids = [...new Set(chosen)].slice(0, MAX_SUBSET_IDS);
  if (ids.length === 0)
    return {
      items: [],
      sourceUrl: null,
      sourceUploadsUrl: null,
      warnings: ["Nothing to copy: the site has no published pages or posts."],
    };
  // Versions first, export second: a person's edit racing the copy leaves the recorded version older than the
  // copied content, so applying later refuses (drifted) instead of silently overwriting that edit.
  const design = await liveDesignRefs(input.source);
  const versions = await readLiveVersions(input.source, [
    ...ids.map((id) => `post:${id}`),
    ...LIVE_OPTIONS.map((name) => `option:${name}`),
    ...design.refs.map((item) => item.ref),
  ]);
  const exported = await exportFrom(input.source, ids);
  const uploads = uploadsBaseUrl(exported);
  const toImport = uploads ? rewriteMediaUrls(exported, uploads, input.mediaBaseUrl) : exported;
  if (toImport.source && exported.source) toImport.source.homeUrl = exported.source.homeUrl;
  const target = await input.target;
  const result = (await target.post<ImportResult>("/sitewright/v1/import", toImport)).data ?? {};
  const idMap = result.idMap ?? {};
  const mapped = (id: number) => (idMap[String(id)] === undefined ? null : Number(idMap[String(id)]));
  // Design items apply back only when the sandbox runs the live theme (the import switches to it when installed).
  const sameTheme = design.stylesheet !== null && result.theme === design.stylesheet;
  const items: SandboxManifestItem[] = [
    ...contentItems(exported, mapped, versions),
    ...(exported.menus ?? []).map((menu) => ({
      kind: "menu",
      sourceId: menu.id,
      sandboxId: null,
      checksum: checksum(menu),
      title: menu.name,
    })),
    ...siteWideItems(exported, design, sameTheme, versions),
    ...liveOptionItems(exported, versions),
  ];
  const skipped = (exported.skipped ?? []).map((id) => `Item ${id} was not copied (missing or not copyable).`);
  return {
    items,
    sourceUrl: exported.source?.homeUrl ?? null,
    sourceUploadsUrl: uploads,
    warnings: [...skipped, ...(result.warnings ?? [])],
  };
}
