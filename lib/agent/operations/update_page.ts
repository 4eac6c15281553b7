import { z } from "zod";
import { planPostUpdate } from "@/lib/changes/plan";
import { defineOperation, OperationError } from "./operation";
import { contentType, postText, readPostItem } from "./wordpress";
import { asStoredMarkup, asStoredTitle } from "@/lib/wordpress/stored-text";

export default defineOperation({
  name: "update_page",
  label: "Edit a page",
  description:
    "Change the title, whole content, excerpt or slug of a page or post; give only what changes. For one block use replace_block. Keeps the status.",
  input: z
    .object({
      type: contentType,
      id: z.number().int().positive(),
      title: z.string().min(1).max(300).optional(),
      content: z.string().max(100_000).optional().describe("block markup"),
      excerpt: z.string().max(2000).optional(),
      slug: z
        .string()
        .regex(/^[a-z0-9-]{1,200}$/)
        .optional(),
    })
    .refine((input) => ["title", "content", "excerpt", "slug"].some((k) => input[k as "title"] !== undefined), {
      message: "Give at least one of title, content, excerpt or slug.",
    }),
  scope: "content:write",
  risk: "write",
  async plan(client, input) {
    // Spelled as WordPress stores it, so what the owner approves is what is written.
    const { type, id } = input;
    const title = input.title === undefined ? undefined : asStoredTitle(input.title);
    const content = input.content === undefined ? undefined : asStoredMarkup(input.content);
    const excerpt = input.excerpt === undefined ? undefined : asStoredMarkup(input.excerpt);
    const current = await readPostItem(client, type, id);
    if (postText(current, "status") === "trash") throw new OperationError(`${type} ${id} is in the trash.`, "in_trash");
    const fields: Record<string, string> = {};
    if (title !== undefined) fields.title = title;
    if (content !== undefined) fields.content = content;
    if (excerpt !== undefined) fields.excerpt = excerpt;
    if (input.slug !== undefined) fields.slug = input.slug;
    const item = planPostUpdate(current, fields, "");
    const changed = Object.keys(item.change.fields ?? {});
    if (changed.length === 0) throw new OperationError(`${type} ${id} already has exactly these values.`, "no_change");
    item.summary = `Updated the ${changed.join(", ")} of ${type} ${id}.`;
    return {
      summary: item.summary,
      target: { type, id, title: title ?? current.title },
      items: [item],
      data: () => ({ id }),
    };
  },
});
