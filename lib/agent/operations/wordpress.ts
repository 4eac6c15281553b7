/** Shared pieces of the WordPress REST calls the operations make (WordPress 6.1 core routes). */
import { z } from "zod";
import { readItem, type SiteItem } from "@/lib/sites/items";
import type { SiteClient } from "@/lib/sites/types";
import { OperationError } from "./operation";

export const contentType = z.enum(["page", "post"]).default("page");

export const postId = z.number().int().positive();

export const routeFor = (type: "page" | "post") => (type === "page" ? "/wp/v2/pages" : "/wp/v2/posts");

/** What `context=edit` gives for a page or post (only the fields we ask for). */
export type EditablePost = {
  id: number;
  status: string;
  link: string;
  modified?: string;
  featured_media?: number;
  title: { raw: string };
  content: { raw: string };
  excerpt: { raw: string };
};

const EDIT_FIELDS = "id,status,link,modified,featured_media,title,content,excerpt";

export async function fetchEditable(client: SiteClient, type: "page" | "post", id: number): Promise<EditablePost> {
  const response = await client.get<EditablePost>(`${routeFor(type)}/${id}`, { context: "edit", _fields: EDIT_FIELDS });
  const post = response.data;
  if (!post || typeof post !== "object" || typeof post.id !== "number" || !post.title || !post.content) {
    throw new OperationError(`The site did not return ${type} ${id} in the expected shape.`, "bad_response");
  }
  return post;
}

export const targetOf = (
  type: "page" | "post",
  post: Pick<EditablePost, "id" | "link"> & { title?: { raw?: string } },
) => ({
  type,
  id: post.id,
  title: post.title?.raw,
  link: post.link,
});

/** Long values are cut for cards and the audit log; the site keeps the full text. */
export function clip(value: string, max = 2000): string {
  return value.length > max ? `${value.slice(0, max)}… [${value.length - max} more characters]` : value;
}

export type PostItem = SiteItem & { state: Record<string, unknown> };

/** A page or post as the plugin's items route reads it: its restorable state and the version a write will expect. */
export async function readPostItem(client: SiteClient, type: "page" | "post", id: number): Promise<PostItem> {
  const item = await readItem(client, `post:${id}`);
  if (!item.exists || !item.state || item.state.type !== type) {
    throw new OperationError(`There is no ${type} with the ID ${id} on the site.`, "not_found");
  }
  return item as PostItem;
}

export const postText = (item: PostItem, field: "title" | "content" | "excerpt" | "status") =>
  typeof item.state[field] === "string" ? (item.state[field] as string) : "";
