import { z } from "zod";
import { defineOperation, OperationError } from "./operation";
import { clip, contentType, fetchEditable, postId, saveEditable, targetOf } from "./wordpress";

export default defineOperation({
  name: "update_page",
  description:
    "Change the title, the whole content, or the excerpt of an existing page or post. Give only the fields to change. To change one block of a long page use replace_block instead of rewriting `content`. Does not change the status (a published page stays published).",
  input: z
    .object({
      type: contentType,
      id: z.number().int().positive().describe("The WordPress ID of the page or post"),
      title: z.string().min(1).max(300).optional().describe("The new title"),
      content: z.string().max(100_000).optional().describe("The new body, as block markup (replaces all of it)"),
      excerpt: z.string().max(2000).optional().describe("The new excerpt"),
    })
    .refine((input) => input.title !== undefined || input.content !== undefined || input.excerpt !== undefined, {
      message: "Give at least one of title, content or excerpt.",
    }),
  scope: "content:write",
  risk: "write",
  async run(client, { type, id, title, content, excerpt }) {
    const current = await fetchEditable(client, type, id);
    if (current.status === "trash") throw new OperationError(`${type} ${id} is in the trash.`, "in_trash");
    const changes: Record<string, string> = {};
    const before: Record<string, string> = {};
    if (title !== undefined) [changes.title, before.title] = [title, current.title.raw];
    if (content !== undefined) [changes.content, before.content] = [content, clip(current.content.raw)];
    if (excerpt !== undefined) [changes.excerpt, before.excerpt] = [excerpt, current.excerpt.raw];
    const saved = await saveEditable(client, type, id, changes);
    const after: Record<string, string> = {};
    if (title !== undefined) after.title = saved.title?.raw ?? title;
    if (content !== undefined) after.content = clip(saved.content?.raw ?? content);
    if (excerpt !== undefined) after.excerpt = saved.excerpt?.raw ?? excerpt;
    return {
      summary: `Updated the ${Object.keys(changes).join(", ")} of ${type} ${id}.`,
      target: targetOf(type, { id, link: current.link, title: { raw: after.title ?? current.title.raw } }),
      before,
      after,
      data: { id, status: saved.status ?? current.status, modified: saved.modified },
    };
  },
});
