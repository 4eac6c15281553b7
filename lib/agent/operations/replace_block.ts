import { z } from "zod";
import { BlockEditError, blockSource, replaceBlock } from "../blocks";
import { defineOperation, OperationError } from "./operation";
import { contentType, fetchEditable, postId, saveEditable, targetOf } from "./wordpress";

export default defineOperation({
  name: "replace_block",
  description:
    "Replace exactly one block of a page or post, found by its outline position from read_page (e.g. \"2\" or \"3.1\"), with new block markup. Everything else on the page is kept byte for byte. Read the page first: positions change after edits.",
  input: z.object({
    type: contentType,
    id: postId,
    position: z.string().regex(/^[1-9]\d*(\.[1-9]\d*)*$/).describe('Outline position, e.g. "2" or "3.1"'),
    markup: z.string().min(1).max(50_000).describe("The new block, as complete block markup"),
  }),
  scope: "content:write",
  risk: "write",
  async run(client, { type, id, position, markup }) {
    const current = await fetchEditable(client, type, id);
    const raw = current.content.raw;
    let next: string;
    try {
      next = replaceBlock(raw, position, markup);
    } catch (error) {
      if (error instanceof BlockEditError) throw new OperationError(error.message, "bad_block");
      throw error;
    }
    await saveEditable(client, type, id, { content: next });
    return {
      summary: `Replaced block ${position} of ${type} ${id}.`,
      target: targetOf(type, current),
      before: { position, markup: blockSource(raw, position) },
      after: { position, markup },
      data: { id },
    };
  },
});
