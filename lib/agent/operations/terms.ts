/** Shared pieces of the category and tag operations (items `term:<id>`; a post's `categories` and `tags`). */
import { z } from "zod";
import { readItem, type SiteItem } from "@/lib/sites/items";
import { asStoredMarkup } from "@/lib/wordpress/stored-text";
import type { SiteClient } from "@/lib/sites/types";
import { OperationError } from "./operation";

export const taxonomy = z.enum(["category", "post_tag"]).default("category").describe("default category");

export const termLabel = (tax: string) => (tax === "post_tag" ? "tag" : "category");

/** A term's name as WordPress stores it (sanitize_text_field, then `&` as `&amp;`): what is approved is what is stored. */
export const asStoredTermName = (name: string) => asStoredMarkup(name.replace(/[\r\n\t ]+/g, " ").trim());

export type TermItem = SiteItem & { state: Record<string, unknown> };

export async function readTermItem(client: SiteClient, id: number): Promise<TermItem> {
  const item = await readItem(client, `term:${id}`);
  if (!item.exists || !item.state)
    throw new OperationError(`There is no category or tag with the ID ${id}.`, "not_found");
  return item as TermItem;
}
