/** Listing pages and posts: shared by list_pages and list_posts. */
import { z } from "zod";
import type { SiteClient } from "@/lib/sites/types";
import type { OperationResult } from "./operation";
import { routeFor } from "./wordpress";

export const listInput = z.object({
  search: z.string().max(200).optional().describe("Words in title or content"),
  status: z
    .enum(["any", "publish", "draft", "pending", "private", "future"])
    .default("any")
    .describe('"any": all but trashed'),
  page: z.number().int().min(1).max(1000).default(1),
  perPage: z.number().int().min(1).max(50).default(20),
});

type Listed = {
  id: number;
  status: string;
  link: string;
  modified: string;
  title: { raw?: string; rendered?: string };
};

export async function listContent(
  client: SiteClient,
  type: "page" | "post",
  input: z.output<typeof listInput>,
): Promise<OperationResult> {
  const query: Record<string, string | number> = {
    context: "edit",
    status: input.status,
    page: input.page,
    per_page: input.perPage,
    orderby: "modified",
    order: "desc",
    _fields: "id,title,status,link,modified",
  };
  if (input.search) query.search = input.search;
  const response = await client.get<Listed[]>(routeFor(type), query);
  const items = (Array.isArray(response.data) ? response.data : []).map((item) => ({
    id: item.id,
    title: item.title?.raw ?? item.title?.rendered ?? "",
    status: item.status,
    link: item.link,
    modified: item.modified,
  }));
  const total = Number(response.headers.get("x-wp-total") ?? items.length);
  const noun = type === "page" ? "pages" : "posts";
  return {
    summary: input.search
      ? `Searched ${noun} for "${input.search}": ${items.length} found.`
      : `Listed ${items.length} of ${total} ${noun}.`,
    data: { total, page: input.page, items },
  };
}
