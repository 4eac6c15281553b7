import { z } from "zod";
import { planPostUpdate } from "@/lib/changes/plan";
import { BlockEditError, insertBlock } from "../blocks";
import { defineOperation, OperationError } from "./operation";
import { contentType, postId, postText, readPostItem } from "./wordpress";
import { asStoredMarkup } from "@/lib/wordpress/stored-text";

export default defineOperation({
  name: "insert_block",
  label: "Insert a block",
  description: 'Insert a block before or after an outline position from read_page, or at "end".',
  input: z.object({
    type: contentType,
    id: postId,
    position: z.string().regex(/^(end|[1-9]\d*(\.[1-9]\d*)*)$/),
    where: z.enum(["before", "after"]).default("after"),
    markup: z.string().min(1).max(50_000).describe("block markup"),
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
