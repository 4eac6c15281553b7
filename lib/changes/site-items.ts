/**
 * The plugin's items route (`/sitewright/v1/items`, docs/change-sets.md): versioned reads, and conditional batch
 * writes that the site applies all or nothing, each only over the version it expects. Answers are parsed with
 * zod: they come from the site.
 */
import { z } from "zod";
import type { ItemChange } from "@/lib/db/schema";
import { isSiteRequestError } from "@/lib/sites/client";
import type { SiteClient } from "@/lib/sites/types";

export const ITEMS_ROUTE = "/sitewright/v1/items";

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

/** Recognised by name, not `instanceof`: Next.js may load this module once per bundle (STYLE.md). */
export const isFilteredItemsError = (error: unknown): error is FilteredItemsError =>
  error instanceof Error && error.name === "FilteredItemsError" && Array.isArray((error as FilteredItemsError).lost);

export const isStaleItemsError = (error: unknown): error is StaleItemsError =>
  error instanceof Error && error.name === "StaleItemsError" && Array.isArray((error as StaleItemsError).items);

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
 * `409 sitewright_filtered`.
 */
export async function writeItems(client: SiteClient, changes: ItemChange[]): Promise<WrittenItem[]> {
  try {
    const { data } = await client.post<unknown>(ITEMS_ROUTE, { changes });
    return z.object({ items: z.array(writtenItemSchema) }).parse(data).items;
  } catch (error) {
    if (isSiteRequestError(error) && error.siteCode === "sitewright_stale") {
      const parsed = staleSchema.safeParse(error.siteData);
      throw new StaleItemsError(parsed.success ? parsed.data.items : []);
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
