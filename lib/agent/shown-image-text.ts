/**
 * Where an image's alt text or caption reaches visitors (issue 35, "Visible means where visitors see it"): the
 * published pages and posts whose image blocks show the attachment keep their own copy of both, so a change to the
 * attachment is planned there too — one item per page or post, each visible, verified on its page and undone with
 * the rest of the change set. Found by searching published content for the image's `wp-image-<id>` class (as
 * the plugin counts published uses), then read and rewritten block by block (./image-blocks.ts).
 */
import { type PlannedItem, planPostUpdate } from "@/lib/changes/plan";
import { readItems } from "@/lib/sites/items";
import type { SiteClient } from "@/lib/sites/types";
import { rewriteImageBlocks, type ShownText } from "./image-blocks";

/** At most this many pages and posts are rewritten with one media change (each is an item the owner reads). */
export const MAX_SHOWN_PLACES = 20;

const ROUTES = ["/wp/v2/pages", "/wp/v2/posts"] as const;

/** Published (or scheduled) pages and posts whose content names the image's block class. */
async function postsShowing(client: SiteClient, attachmentId: number): Promise<number[]> {
  const ids: number[] = [];
  for (const route of ROUTES) {
    const { data } = await client.get<Array<{ id: number }>>(route, {
      search: `wp-image-${attachmentId}`,
      status: "publish,future",
      context: "edit",
      per_page: MAX_SHOWN_PLACES,
      _fields: "id",
    });
    if (Array.isArray(data)) ids.push(...data.map((row) => row.id));
  }
  return ids.slice(0, MAX_SHOWN_PLACES);
}

/** The items that write `text` into each published image block showing the attachment (none when no text changes). */
export async function planShownImageText(
  client: SiteClient,
  attachment: { id: number; title: string },
  text: ShownText,
): Promise<PlannedItem[]> {
  if (text.alt === undefined && text.caption === undefined) return [];
  const ids = await postsShowing(client, attachment.id);
  if (ids.length === 0) return [];
  const posts = await readItems(
    client,
    ids.map((id) => `post:${id}`),
  );
  const what = [text.alt !== undefined ? "alt text" : "", text.caption !== undefined ? "caption" : ""]
    .filter(Boolean)
    .join(" and ");
  return posts.flatMap((post) => {
    const content = post.state?.content;
    if (!post.exists || typeof content !== "string") return [];
    const rewritten = rewriteImageBlocks(content, attachment.id, text);
    if (rewritten === content) return [];
    const planned = planPostUpdate(
      post,
      { content: rewritten },
      `Showed the new ${what} of “${attachment.title}” in “${post.title}”.`,
    );
    planned.visible = true; // published content: visitors see it
    return [planned];
  });
}
