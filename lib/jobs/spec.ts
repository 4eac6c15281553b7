/**
 * What a bulk job does, as the agent describes it (docs/bulk-jobs.md): a selection of posts, pages or media, and one
 * change per item — a find-and-replace, a field set from a template, or text the model writes per item.
 */
import { z } from "zod";

export const jobFields = ["content", "title", "excerpt", "alt", "caption", "seo_title", "seo_description"] as const;
export type JobField = (typeof jobFields)[number];

export const selectionSchema = z.object({
  type: z.enum(["page", "post", "media"]),
  search: z.string().max(200).optional(),
  status: z.enum(["publish", "draft", "any"]).default("any"),
  missing: z.enum(["alt", "excerpt", "seo_description"]).optional(),
});
export type Selection = z.output<typeof selectionSchema>;

/**
 * One change per item, flat (what the model fills in; small on every model call): `replace` takes find/replace,
 * `set` a template (`{title}` is each item's title), `write` an instruction for the text the model writes per item.
 */
export const changeSchema = z
  .object({
    kind: z.enum(["replace", "set", "write"]),
    field: z.enum(jobFields),
    find: z.string().min(1).max(500).optional(),
    replace: z.string().max(500).optional(),
    template: z.string().max(2000).optional(),
    instruction: z.string().min(1).max(1000).optional(),
  })
  .superRefine((change, ctx) => {
    const need = { replace: ["find", "replace"], set: ["template"], write: ["instruction"] }[change.kind];
    for (const key of need)
      if (change[key as "find"] === undefined)
        ctx.addIssue({ code: "custom", path: [key], message: `A ${change.kind} change needs ${key}.` });
    if (change.kind === "replace" && !["content", "title", "excerpt"].includes(change.field))
      ctx.addIssue({
        code: "custom",
        path: ["field"],
        message: "Find and replace works on content, title or excerpt.",
      });
    if (change.kind === "write" && ["content", "title"].includes(change.field))
      ctx.addIssue({
        code: "custom",
        path: ["field"],
        message: "The model writes alt text, captions, excerpts and SEO fields only.",
      });
  });
export type JobChange = z.output<typeof changeSchema>;

export const jobSpecSchema = z.object({
  description: z.string().min(1).max(200).describe('e.g. "images without alt text"'),
  selection: selectionSchema,
  change: changeSchema,
});
export type JobSpec = z.output<typeof jobSpecSchema>;

/** Which item kind (and plugin field) a job field lives in. */
export function fieldTarget(field: JobField): { ref: "post" | "seo"; key: string } {
  switch (field) {
    case "caption":
      return { ref: "post", key: "excerpt" };
    case "seo_title":
      return { ref: "seo", key: "title" };
    case "seo_description":
      return { ref: "seo", key: "description" };
    default:
      return { ref: "post", key: field };
  }
}

/** Whether the field fits the selection's type (alt and captions are media's; SEO fields are pages' and posts'). */
export function fieldFits(field: JobField, type: Selection["type"]): boolean {
  if (field === "alt" || field === "caption") return type === "media";
  if (field === "seo_title" || field === "seo_description" || field === "content") return type !== "media";
  return true;
}
