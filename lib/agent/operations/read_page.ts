import { z } from "zod";
import { readItems } from "@/lib/sites/items";
import type { SiteClient } from "@/lib/sites/types";
import { outline, parseBlocks } from "../blocks";
import { defineOperation } from "./operation";
import { clip, contentType, fetchEditable, postId, targetOf } from "./wordpress";

const CONTENT_LIMIT = 30_000;

export default defineOperation({
  name: "read_page",
  label: "Read a page",
  description:
    'Read a page or post: fields, terms, SEO, raw content and a block outline with positions ("3", "3.1") for replace_block and insert_block.',
  input: z.object({ type: contentType, id: postId }),
  scope: "content:read",
  risk: "read",
  async run(client, { type, id }) {
    const [post, extra] = await Promise.all([fetchEditable(client, type, id), readExtras(client, id)]);
    const raw = post.content.raw ?? "";
    return {
      summary: `Read ${type} ${id} ("${clip(post.title.raw, 80)}").`,
      target: targetOf(type, post),
      data: {
        id: post.id,
        type,
        title: post.title.raw,
        status: post.status,
        link: post.link,
        modified: post.modified,
        excerpt: post.excerpt?.raw ?? "",
        featuredMedia: post.featured_media ?? 0,
        ...extra,
        outline: outline(raw, parseBlocks(raw)),
        content: clip(raw, CONTENT_LIMIT),
        contentLength: raw.length,
      },
    };
  },
});

/**
 * What core's page route does not give in one call: slug, date (GMT), categories and tags (by slug) and the SEO
 * fields, from the plugin's items. An older plugin (no `seo:` items) gives what it has.
 */
async function readExtras(client: SiteClient, id: number): Promise<Record<string, unknown>> {
  const items = await readItems(client, [`post:${id}`, `seo:${id}`]).catch(() =>
    readItems(client, [`post:${id}`]).catch(() => []),
  );
  const state = items[0]?.state ?? {};
  const extra: Record<string, unknown> = { slug: state.slug, dateGmt: state.date };
  if (Array.isArray(state.categories)) extra.categories = state.categories;
  if (Array.isArray(state.tags)) extra.tags = state.tags;
  const seo = items[1];
  if (seo?.exists && seo.state) {
    const { plugin, ...fields } = seo.state;
    extra.seo = { plugin, ...fields };
  } else if (items.length > 1) extra.seo = "No SEO plugin whose fields Sitewright can change is active.";
  return extra;
}
