import { z } from "zod";
import { planPostUpdate } from "@/lib/changes/plan";
import { BlockEditError, insertBlock } from "../blocks";
import { defineOperation, OperationError } from "./operation";
import { contentType, postId, postText, readPostItem } from "./wordpress";
import { asStoredMarkup } from "@/lib/wordpress/stored-text";

export default defineOperation({
  name: "insert_block",
  label: "Insert a block",
  description:
    'Insert one new block into a page or post, before or after the block at an outline position from read_page, or at the end with position "end".',
  input: z.object({
    type: contentType,
    id: postId,
    position: z
      .string()
      .regex(/^(end|[1-9]\d*(\.[1-9]\d*)*)$/)
      .describe('Outline position of the neighbouring block ("2", "3.1"), or "end"'),
    where: z.enum(["before", "after"]).default("after").describe("Insert before or after that block"),
    markup: z.string().min(1).max(50_000).describe("The new block, as complete block markup"),
  }),
  scope: "content:write",
  risk: "write",
  async plan(client, { type, id, position, where, markup: given }) {
    const markup = asStoredMarkup(given); // as WordPress stores it: what the owner approves is what is written
    const current = await readPostItem(client, type, id);
    let next: string;
    try {
      next = insertBlock(postText(current, "content"), position, where, markup);
    } catch (error) {
      if (error instanceof BlockEditError) throw new OperationError(error.message, "bad_block");
      throw error;
    }
    const place = position === "end" ? "at the end" : `${where} block ${position}`;
    const summary = `Inserted a block ${place} of ${type} ${id}.`;
    return {
      summary,
      target: { type, id, title: current.title },
      items: [planPostUpdate(current, { content: next }, summary)],
      data: () => ({ id }),
    };
  },
});
