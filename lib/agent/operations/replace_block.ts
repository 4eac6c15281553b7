import { z } from "zod";
import { planPostUpdate } from "@/lib/changes/plan";
import { BlockEditError, replaceBlock } from "../blocks";
import { defineOperation, OperationError } from "./operation";
import { contentType, postId, postText, readPostItem } from "./wordpress";
import { asStoredMarkup } from "@/lib/wordpress/stored-text";

export default defineOperation({
  name: "replace_block",
  label: "Replace a block",
  description: "Replace one block at an outline position from read_page (positions change after edits).",
  input: z.object({
    type: contentType,
    id: postId,
    position: z
      .string()
      .regex(/^[1-9]\d*(\.[1-9]\d*)*$/)
      .describe('Outline position, e.g. "2" or "3.1"'),
    markup: z.string().min(1).max(50_000).describe("block markup"),
  }),
  scope: "content:write",
  risk: "write",
  async plan(client, { type, id, position, markup: given }) {
    const markup = asStoredMarkup(given); // as WordPress stores it: what the owner approves is what is written
    const current = await readPostItem(client, type, id);
    let next: string;
    try {
      next = replaceBlock(postText(current, "content"), position, markup);
    } catch (error) {
      if (error instanceof BlockEditError) throw new OperationError(error.message, "bad_block");
      throw error;
    }
    const summary = `Replaced block ${position} of ${type} ${id}.`;
    return {
      summary,
      target: { type, id, title: current.title },
      items: [planPostUpdate(current, { content: next }, summary)],
      data: () => ({ id }),
    };
  },
});
