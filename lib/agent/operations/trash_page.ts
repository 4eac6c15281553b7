import { z } from "zod";
import { planPostTrash } from "@/lib/changes/plan";
import { defineOperation, OperationError } from "./operation";
import { contentType, postId, postText, readPostItem } from "./wordpress";

export default defineOperation({
  name: "trash_page",
  label: "Move to the trash",
  description:
    "Move a page or post to the trash (it can be restored from WordPress's trash for 30 days, or undone from Sitewright's Changes page).",
  input: z.object({ type: contentType, id: postId }),
  scope: "content:write",
  risk: "destructive",
  async plan(client, { type, id }) {
    const current = await readPostItem(client, type, id);
    if (postText(current, "status") === "trash")
      throw new OperationError(`${type} ${id} is already in the trash.`, "in_trash");
    const summary = `Moved ${type} ${id} ("${current.title}") to the trash.`;
    return {
      summary,
      target: { type, id, title: current.title },
      items: [planPostTrash(current, summary)],
      data: () => ({ id, status: "trash" }),
    };
  },
});
