/**
 * What a job selects, read from the site before anything runs (so the owner sees "47 images have no alt text"):
 * the ids of the pages, posts or media that match, newest first, at most the job's item limit.
 */
import { readItems } from "@/lib/sites/items";
import { isSiteRequestError } from "@/lib/sites/client";
import type { SiteClient } from "@/lib/sites/types";
import type { Selection } from "./spec";

const PER_PAGE = 100;

type Listed = { id: number; alt_text?: string; excerpt?: { raw?: string } };

/** Every matching id, up to `max + 1` (one more than allowed tells the caller the selection is too big). */
export async function selectIds(client: SiteClient, selection: Selection, max: number): Promise<number[]> {
  const route =
    selection.type === "media" ? "/wp/v2/media" : selection.type === "page" ? "/wp/v2/pages" : "/wp/v2/posts";
  const ids: number[] = [];
  for (let page = 1; ids.length <= max; page++) {
    const query: Record<string, string | number> = {
      per_page: PER_PAGE,
      page,
      context: "edit",
      orderby: "id",
      order: "desc",
      _fields: selection.type === "media" ? "id,alt_text" : "id,excerpt",
    };
    if (selection.search) query.search = selection.search;
    if (selection.type === "media") query.media_type = "image";
    else query.status = selection.status === "any" ? "publish,draft,pending,private,future" : selection.status;
    const rows = await listPage(client, route, query);
    for (const row of rows) if (matchesMissing(selection, row)) ids.push(row.id);
    if (rows.length < PER_PAGE) break;
  }
  if (selection.missing === "seo_description") return withoutSeoDescription(client, ids.slice(0, max + 1));
  return ids.slice(0, max + 1);
}

/** One page of a listing; past the last page WordPress answers 400 `rest_post_invalid_page_number`: no rows. */
async function listPage(client: SiteClient, route: string, query: Record<string, string | number>): Promise<Listed[]> {
  try {
    const { data } = await client.get<Listed[]>(route, query);
    return Array.isArray(data) ? data : [];
  } catch (error) {
    if (isSiteRequestError(error) && error.siteCode === "rest_post_invalid_page_number") return [];
    throw error;
  }
}

function matchesMissing(selection: Selection, row: Listed): boolean {
  if (selection.missing === "alt") return (row.alt_text ?? "") === "";
  if (selection.missing === "excerpt") return (row.excerpt?.raw ?? "") === "";
  return true;
}

/** Keeps the ids whose SEO description is empty (read in batches through the plugin's items). */
async function withoutSeoDescription(client: SiteClient, ids: number[]): Promise<number[]> {
  const kept: number[] = [];
  for (let start = 0; start < ids.length; start += 50) {
    const batch = ids.slice(start, start + 50);
    const items = await readItems(
      client,
      batch.map((id) => `seo:${id}`),
    );
    for (const [index, item] of items.entries()) {
      if (item.exists && (item.state?.description ?? "") === "") kept.push(batch[index]!);
    }
  }
  return kept;
}
