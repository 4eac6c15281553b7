import { z } from "zod";
import { planPostUpdate } from "@/lib/changes/plan";
import { defineOperation, OperationError } from "./operation";
import { taxonomy, termLabel } from "./terms";
import { postId, readPostItem } from "./wordpress";
import type { SiteClient } from "@/lib/sites/types";

const slugs = z.array(z.string().max(200)).max(50);

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
  description: "Add or remove a post's categories or tags, by slug (list_terms; save_term creates).",
  input: z
    .object({ id: postId, taxonomy, add: slugs.optional(), remove: slugs.optional() })
    .refine((i) => i.add?.length || i.remove?.length, { message: "Give slugs to add or remove." }),
  scope: "content:write",
  risk: "write",
  pluginFeature: "terms",
  async plan(client, input) {
    const field = input.taxonomy === "post_tag" ? "tags" : "categories";
    const route = input.taxonomy === "post_tag" ? "/wp/v2/tags" : "/wp/v2/categories";
    await requireTerms(client, route, termLabel(input.taxonomy), input.add);
    const current = await readPostItem(client, "post", input.id);
    const next = nextList(current.state[field], input.add, input.remove);
    const item = planPostUpdate(current, { [field]: next }, "");
    if (Object.keys(item.change.fields ?? {}).length === 0)
      throw new OperationError(`Post ${input.id} already has these ${field}.`, "no_change");
    item.summary = `Changed the ${field} of post ${input.id}.`;
    return {
      summary: item.summary,
      target: { type: "post", id: input.id, title: current.title },
      items: [item],
      data: () => ({ id: input.id, [field]: next }),
    };
  },
});
