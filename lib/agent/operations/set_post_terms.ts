import { z } from "zod";
import { planPostUpdate } from "@/lib/changes/plan";
import { defineOperation, OperationError } from "./operation";
import { postId, readPostItem } from "./wordpress";
import type { SiteClient } from "@/lib/sites/types";

const slugs = z.array(z.string().regex(/^[a-z0-9%-]{1,200}$/)).max(50);

/** The new list: the current one with `add` added and `remove` removed, sorted as the site reports it. */
function nextList(current: unknown, add: string[] = [], remove: string[] = []): string[] {
  const list = new Set(Array.isArray(current) ? current.map(String) : []);
  for (const slug of add) list.add(slug);
  for (const slug of remove) list.delete(slug);
  return [...list].sort();
}

/** Terms are created as their own items first (save_term): a slug that names none is an error the model can act on. */
async function requireTerms(client: SiteClient, route: string, label: string, slugsToAdd: string[] = []) {
  if (slugsToAdd.length === 0) return;
  const { data } = await client.get<Array<{ slug: string }>>(route, {
    slug: slugsToAdd.join(","),
    per_page: 100,
    _fields: "slug",
  });
  const found = new Set((Array.isArray(data) ? data : []).map((term) => term.slug));
  const missing = slugsToAdd.filter((slug) => !found.has(slug));
  if (missing.length > 0)
    throw new OperationError(
      `There is no ${label} with the slug ${missing.map((s) => `"${s}"`).join(", ")}; create it with save_term first.`,
      "unknown_term",
    );
}

export default defineOperation({
  name: "set_post_terms",
  label: "Change a post's categories or tags",
  description:
    "Add or remove categories and tags of a post, by slug (see list_terms; create missing ones with save_term first). On published posts this waits for the owner's approval.",
  input: z
    .object({
      id: postId,
      addCategories: slugs.optional(),
      removeCategories: slugs.optional(),
      addTags: slugs.optional(),
      removeTags: slugs.optional(),
    })
    .refine((i) => i.addCategories || i.removeCategories || i.addTags || i.removeTags, {
      message: "Give categories or tags to add or remove.",
    }),
  scope: "content:write",
  risk: "write",
  pluginFeature: "terms",
  async plan(client, input) {
    await requireTerms(client, "/wp/v2/categories", "category", input.addCategories);
    await requireTerms(client, "/wp/v2/tags", "tag", input.addTags);
    const current = await readPostItem(client, "post", input.id);
    const fields: Record<string, string[]> = {};
    if (input.addCategories || input.removeCategories)
      fields.categories = nextList(current.state.categories, input.addCategories, input.removeCategories);
    if (input.addTags || input.removeTags) fields.tags = nextList(current.state.tags, input.addTags, input.removeTags);
    const item = planPostUpdate(current, fields, "");
    if (Object.keys(item.change.fields ?? {}).length === 0)
      throw new OperationError(`Post ${input.id} already has these categories and tags.`, "no_change");
    item.summary = `Changed the ${Object.keys(item.after ?? {}).join(" and ")} of post ${input.id}.`;
    return {
      summary: item.summary,
      target: { type: "post", id: input.id, title: current.title },
      items: [item],
      data: () => ({ id: input.id, ...fields }),
    };
  },
});
