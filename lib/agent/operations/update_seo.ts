import { z } from "zod";
import { readItems } from "@/lib/sites/items";
import { planValueUpdate } from "@/lib/changes/plan";
import { defineOperation, OperationError } from "./operation";
import { contentType, postId } from "./wordpress";

const text = (max: number) =>
  z
    .string()
    .max(max)
    .refine((v) => !/[<>]/.test(v), "Plain text, no markup.");

export default defineOperation({
  name: "update_seo",
  label: "Change SEO settings",
  description:
    "Change SEO fields of a page or post in the site's SEO plugin (read_page shows them). Give only what changes.",
  input: z
    .object({
      type: contentType,
      id: postId,
      title: text(300).optional(),
      description: text(1000).optional().describe("meta description"),
      focusKeyword: text(200).optional(),
      canonical: z.union([z.url({ protocol: /^https?$/ }), z.literal("")]).optional(),
      noindex: z.boolean().nullable().optional().describe("true: hide from search; null: default"),
    })
    .refine((i) => Object.keys(i).some((k) => !["type", "id"].includes(k)), { message: "Give a field to change." }),
  scope: "content:write",
  risk: "write",
  pluginFeature: "seo",
  async plan(client, { type, id, ...fields }) {
    const [post, seo] = await readItems(client, [`post:${id}`, `seo:${id}`]);
    if (!post?.exists || post.state?.type !== type)
      throw new OperationError(`There is no ${type} with the ID ${id} on the site.`, "not_found");
    if (!seo?.exists || !seo.state)
      throw new OperationError("This site has no SEO plugin whose fields Sitewright can change.", "no_seo_plugin");
    const item = planValueUpdate(seo, fields, "", post.title);
    if (Object.keys(item.change.fields ?? {}).length === 0)
      throw new OperationError(`The SEO settings of ${type} ${id} already have these values.`, "no_change");
    item.kind = "seo";
    item.summary = `Changed the SEO ${Object.keys(item.after ?? {}).join(", ")} of ${type} ${id}.`;
    return { summary: item.summary, target: { type, id, title: post.title }, items: [item], data: () => ({ id }) };
  },
});
