/**
 * The plugin's items route (`/sitewright/v1/items`, docs/change-sets.md): versioned reads, where visitors would see
 * a planned change (`/items/visibility`), and conditional batch writes that the site applies all or nothing, each
 * only over the version it expects. Answers are parsed with zod: they come from the site.
 */
import { z } from "zod";
import type { ItemChange } from "@/lib/db/schema";
import { isSiteRequestError } from "@/lib/sites/client";
import type { SiteClient } from "@/lib/sites/types";

export const ITEMS_ROUTE = "/sitewright/v1/items";
export const VISIBILITY_ROUTE = "/sitewright/v1/items/visibility";

const state = z.record(z.string(), z.unknown()).nullable();

export const siteItemSchema = z.object({
  ref: z.string(),
  kind: z.string(),
  exists: z.boolean(),
  title: z.string(),
  state,
  version: z.string().nullable(),
  /** What a reader needs besides the state, outside the version (how many published posts use a term or image). */
  info: z.record(z.string(), z.unknown()).optional(),
});
export type SiteItem = z.infer<typeof siteItemSchema>;

export const writtenItemSchema = z.object({
  ref: z.string(),
  action: z.string(),
  title: z.string(),
  before: state,
  after: state,
  version: z.string().nullable(),
  revisionId: z.number().int().optional(),
});
export type WrittenItem = z.infer<typeof writtenItemSchema>;

/** A place where visitors would see an item (API.md "Visibility (v1.3)"): `label` is read on the card. */
export const placeSchema = z.object({
  kind: z.string().max(40),
  label: z.string().max(300),
  url: z.string().max(2000).optional(),
});
export type Place = z.infer<typeof placeSchema>;

const visibilitySchema = z.object({
  ref: z.string(),
  visible: z.boolean(),
  places: z.array(placeSchema).max(50),
  more: z.number().int().nonnegative().default(0),
});
export type ItemVisibility = z.infer<typeof visibilitySchema>;

const visibleSchema = z.object({
  index: z.number().int().nonnegative(),
  ref: z.string(),
  places: z.array(placeSchema).max(50).default([]),
  more: z.number().int().nonnegative().default(0),
});

const staleSchema = z.object({
  items: z.array(z.object({ ref: z.string(), reason: z.string() })),
});

const filteredSchema = z.object({
  ref: z.string().optional(),
  lost: z.array(z.object({ ref: z.string().optional(), field: z.string(), lost: z.string() })),
});

/**
 * The site would have stored something other than the plan (kses, a `save_post` hook, another plugin changed bytes;
 * `409 sitewright_filtered`): it rolled the write back, nothing was written. `lost` says what would have changed.
 */
export class FilteredItemsError extends Error {
  constructor(readonly lost: Array<{ ref?: string; field: string; lost: string }>) {
    super("The site would have changed the content while saving it; nothing was written.");
    this.name = "FilteredItemsError";
  }
}

/** The site refused the batch because items changed since they were read; nothing was written. */
export class StaleItemsError extends Error {
  constructor(readonly items: Array<{ ref: string; reason: string }>) {
    super("Items changed on the site since they were read; nothing was written.");
    this.name = "StaleItemsError";
  }
}

/**
 * Sent with `requireInvisible`, the site found a change visitors would see now (a page was published since it was
 * planned: `409 sitewright_visible`); nothing was written. `ref` and `places` name the first one.
 */
export class VisibleItemsError extends Error {
  constructor(readonly visible: { index: number; ref: string; places: Place[]; more: number }) {
    super("Visitors would see this change now; nothing was written.");
    this.name = "VisibleItemsError";
  }
}

/** Recognised by name, not `instanceof`: Next.js may load this module once per bundle (STYLE.md). */
export const isFilteredItemsError = (error: unknown): error is FilteredItemsError =>
  error instanceof Error && error.name === "FilteredItemsError" && Array.isArray((error as FilteredItemsError).lost);

export const isStaleItemsError = (error: unknown): error is StaleItemsError =>
  error instanceof Error && error.name === "StaleItemsError" && Array.isArray((error as StaleItemsError).items);

export const isVisibleItemsError = (error: unknown): error is VisibleItemsError =>
  error instanceof Error &&
  error.name === "VisibleItemsError" &&
  typeof (error as VisibleItemsError).visible === "object";

/** Where the site cannot tell (or answered nothing we understand), the change counts as visible. */
export const UNKNOWN_PLACE: Place = {
  kind: "unknown",
  label: "Sitewright could not tell where this shows, so it counts as visible",
};

const unknown = (ref: string): ItemVisibility => ({ ref, visible: true, places: [UNKNOWN_PLACE], more: 0 });

/**
 * Asks the site where visitors would see each planned change (one answer per change, in order). The site decides
 * from WordPress's own data; any failure, a missing answer or an answer for another ref counts as visible.
 */
export async function planVisibility(client: SiteClient, changes: ItemChange[]): Promise<ItemVisibility[]> {
  if (changes.length === 0) return [];
  let items: ItemVisibility[] = [];
  try {
    const { data } = await client.post<unknown>(VISIBILITY_ROUTE, { changes });
    items = z.object({ items: z.array(visibilitySchema) }).parse(data).items;
  } catch (error) {
    // A site that refuses the read scope refuses the write too; anything else (an older plugin) errs on visible.
    if (isSiteRequestError(error) && error.siteStatus === 403) throw error;
  }
  return changes.map((change, index) => {
    const answer = items[index];
    if (answer?.ref !== change.ref) return unknown(change.ref);
    return answer.visible && answer.places.length === 0 ? { ...answer, places: [UNKNOWN_PLACE] } : answer;
  });
}

export async function readItems(client: SiteClient, refs: string[]): Promise<SiteItem[]> {
  const { data } = await client.get<unknown>(ITEMS_ROUTE, { refs: refs.join(",") });
  return z.object({ items: z.array(siteItemSchema) }).parse(data).items;
}

export async function readItem(client: SiteClient, ref: string): Promise<SiteItem> {
  const [item] = await readItems(client, [ref]);
  if (!item) throw new Error(`The site did not return ${ref}.`);
  return item;
}

/**
 * Writes a batch, all or nothing. Throws StaleItemsError on `409 sitewright_stale`, FilteredItemsError on
 * `409 sitewright_filtered`. With `requireInvisible` the site first decides again, in the write's lock, whether
 * visitors would see any change, and writes nothing if so (VisibleItemsError on `409 sitewright_visible`).
 */
export async function writeItems(
  client: SiteClient,
  changes: ItemChange[],
  options: { requireInvisible?: boolean } = {},
): Promise<WrittenItem[]> {
  try {
    const body = options.requireInvisible ? { changes, requireInvisible: true } : { changes };
    const { data } = await client.post<unknown>(ITEMS_ROUTE, body);
    return z.object({ items: z.array(writtenItemSchema) }).parse(data).items;
  } catch (error) {
    if (isSiteRequestError(error) && error.siteCode === "sitewright_stale") {
      const parsed = staleSchema.safeParse(error.siteData);
      throw new StaleItemsError(parsed.success ? parsed.data.items : []);
    }
    if (isSiteRequestError(error) && error.siteCode === "sitewright_visible") {
      const parsed = visibleSchema.safeParse(error.siteData);
      throw new VisibleItemsError(
        parsed.success ? parsed.data : { index: 0, ref: changes[0]?.ref ?? "", places: [UNKNOWN_PLACE], more: 0 },
      );
    }
    if (isSiteRequestError(error) && error.siteCode === "sitewright_filtered") {
      const parsed = filteredSchema.safeParse(error.siteData);
      throw new FilteredItemsError(
        parsed.success ? parsed.data.lost.map((l) => ({ ...l, ref: l.ref ?? parsed.data.ref })) : [],
      );
    }
    throw error;
  }
}
