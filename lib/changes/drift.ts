/**
 * How a `409 drifted` answer names its items: by the title the owner finds on the site now. A person's edit is
 * what made the item drift, and it may have renamed it: the title Sitewright recorded before its own edit (what
 * `item.title` holds) can be two names out of date. So: the site's current title for posts and pages (one read,
 * on the refusal path only), else the title the item had when Sitewright last wrote or copied it.
 */
import type { SiteClient } from "@/lib/sites/types";
import { readItems } from "@/lib/sites/items";

/** Only posts, pages and design posts carry a title a person edits; settings keep their label. */
const RENAMEABLE = /^post:\d+$/;

/** The current title of each ref that still exists on the site; none when the site cannot be read. */
export async function currentTitles(client: SiteClient, refs: string[]): Promise<Map<string, string>> {
  const wanted = [...new Set(refs.filter((ref) => RENAMEABLE.test(ref)))];
  if (wanted.length === 0) return new Map();
  try {
    const items = await readItems(client, wanted);
    return new Map(items.filter((item) => item.exists && item.title.trim()).map((item) => [item.ref, item.title]));
  } catch {
    return new Map(); // the refusal stands either way; the recorded title is the fallback
  }
}

/** The title an item had right after a write: the written title when the write set one, else the recorded one. */
export function titleAfter(item: { title: string; afterState?: Record<string, unknown> | null }): string {
  const written = item.afterState?.title;
  return typeof written === "string" && written.trim() ? written : item.title;
}
