/** The site's `wp_navigation` posts (block themes) as core's REST route lists them. */
import type { SiteClient } from "@/lib/sites/types";
import { type BlockNode, parseBlocks } from "../blocks";

export type NavigationPost = {
  id: number;
  status: string;
  date: string;
  title: { raw: string };
  content: { raw: string };
};

export async function listNavigations(client: SiteClient): Promise<NavigationPost[]> {
  const { data } = await client.get<NavigationPost[]>("/wp/v2/navigation", {
    context: "edit",
    status: "publish,draft",
    per_page: 50,
    orderby: "date",
    order: "desc",
    _fields: "id,status,date,title,content",
  });
  return Array.isArray(data) ? data.filter((post) => typeof post?.id === "number" && post.content) : [];
}

/** Menus that navigation blocks in the theme's header parts name (`ref`), in the order they appear. */
async function headerMenuRefs(client: SiteClient): Promise<number[]> {
  const { data } = await client.get<Array<{ content?: { raw?: string } }>>("/wp/v2/template-parts", {
    context: "edit",
    area: "header",
    _fields: "content",
  });
  const refs: number[] = [];
  const walk = (nodes: BlockNode[]) => {
    for (const node of nodes) {
      if (node.name === "core/navigation" && typeof node.attrs?.ref === "number") refs.push(node.attrs.ref);
      walk(node.children);
    }
  };
  for (const part of Array.isArray(data) ? data : []) walk(parseBlocks(part.content?.raw ?? ""));
  return refs;
}

/**
 * The menu visitors see in the header: the one its navigation block names (`ref`), else what a navigation block
 * without a chosen menu shows (every default theme's header has one): the most recently published menu (WordPress's
 * block_core_navigation_get_most_recently_published_navigation), else the page list (undefined here).
 */
export async function shownNavigation(
  client: SiteClient,
  menus: NavigationPost[],
): Promise<NavigationPost | undefined> {
  const published = menus.filter((menu) => menu.status === "publish");
  if (published.length === 0) return undefined;
  const named = (await headerMenuRefs(client)).map((ref) => published.find((menu) => menu.id === ref)).find(Boolean);
  return named ?? published[0];
}
