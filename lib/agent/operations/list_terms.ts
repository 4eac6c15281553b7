import { z } from "zod";
import { defineOperation } from "./operation";
import { taxonomy } from "./terms";

type Term = { id: number; name: string; slug: string; description: string; parent: number; count: number };

export default defineOperation({
  name: "list_terms",
  label: "Look through categories and tags",
  description: "List or search categories or tags: id, name, slug, description, parent, posts using it.",
  input: z.object({
    taxonomy,
    search: z.string().max(200).optional(),
    page: z.number().int().min(1).max(1000).default(1),
  }),
  scope: "content:read",
  risk: "read",
  pluginFeature: "terms",
  async run(client, input) {
    const route = input.taxonomy === "post_tag" ? "/wp/v2/tags" : "/wp/v2/categories";
    const query: Record<string, string | number> = {
      page: input.page,
      per_page: 50,
      context: "edit",
      _fields: "id,name,slug,description,parent,count",
    };
    if (input.search) query.search = input.search;
    const response = await client.get<Term[]>(route, query);
    const items = (Array.isArray(response.data) ? response.data : []).map((t) => ({
      id: t.id,
      name: t.name,
      slug: t.slug,
      description: t.description,
      parent: t.parent ?? 0,
      posts: t.count,
    }));
    return {
      summary: `Listed ${items.length} ${input.taxonomy === "post_tag" ? "tags" : "categories"}.`,
      data: { items },
    };
  },
});
