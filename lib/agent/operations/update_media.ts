import { z } from "zod";
import { readItem } from "@/lib/sites/items";
import { planPostUpdate } from "@/lib/changes/plan";
import { asStoredMarkup, asStoredTitle } from "@/lib/wordpress/stored-text";
import { planShownImageText } from "../shown-image-text";
import { visionEnabled } from "../vision";
import { defineOperation, OperationError } from "./operation";
import type { PostItem } from "./wordpress";

export default defineOperation({
  name: "update_media",
  label: "Describe an image",
  // Read on every run: what the model is told depends on whether it can see images (AGENT_VISION).
  get description() {
    return visionEnabled()
      ? "Change a media item's alt text, caption, title or description (ids: list_media). Look at an image (view_image) before writing its alt text."
      : "Change a media item's alt text, caption, title or description (ids: list_media). You cannot see images: base alt text on the title, file name, caption and the page using it, and tell the owner what it is based on.";
  },
  input: z
    .object({
      id: z.number().int().positive(),
      alt: z
        .string()
        .max(1000)
        .refine((v) => !/[<>]/.test(v), "Plain text, no markup.")
        .optional(),
      caption: z.string().max(2000).optional(),
      title: z.string().min(1).max(300).optional(),
      description: z.string().max(10_000).optional(),
    })
    .refine((i) => Object.keys(i).some((k) => k !== "id"), { message: "Give a field to change." }),
  scope: "content:write",
  risk: "write",
  pluginFeature: "media_alt",
  async plan(client, { id, ...input }) {
    const current = await readItem(client, `post:${id}`);
    if (!current.exists || current.state?.type !== "attachment")
      throw new OperationError(`There is no media item with the ID ${id}.`, "not_found");
    const fields: Record<string, string> = {};
    if (input.alt !== undefined) fields.alt = input.alt.trim();
    if (input.caption !== undefined) fields.excerpt = asStoredMarkup(input.caption);
    if (input.title !== undefined) fields.title = asStoredTitle(input.title);
    if (input.description !== undefined) fields.content = asStoredMarkup(input.description);
    const item = planPostUpdate(current as PostItem, fields, "");
    if (Object.keys(item.change.fields ?? {}).length === 0)
      throw new OperationError(`Media ${id} already has these values.`, "no_change");
    item.summary = `Changed the ${Object.keys(item.after ?? {}).join(", ")} of media ${id} ("${current.title}").`;
    // Image blocks keep their own alt text and caption: written there too, one item per published page or post.
    const changed = (item.after ?? {}) as { alt?: string; excerpt?: string };
    const shown = await planShownImageText(
      client,
      { id, title: current.title },
      { alt: changed.alt, caption: changed.excerpt },
    );
    const where = shown.length ? ` Also shown in ${shown.map((p) => `“${p.title}”`).join(", ")}.` : "";
    return {
      summary: `${item.summary}${where}`,
      target: { type: "media", id, title: current.title },
      items: [item, ...shown],
      data: () => ({ id }),
    };
  },
});
