import { z } from "zod";
import { planPostUpdate } from "@/lib/changes/plan";
import { defineOperation, OperationError } from "./operation";
import { contentType, postId, postText, readPostItem } from "./wordpress";

export default defineOperation({
  name: "publish_page",
  label: "Publish",
  description: "Publish a draft (or pending/private) page or post so that visitors can see it.",
  input: z.object({ type: contentType, id: postId }),
  scope: "content:write",
  risk: "destructive",
  async plan(client, { type, id }) {
    const current = await readPostItem(client, type, id);
    const status = postText(current, "status");
    if (status === "publish") throw new OperationError(`${type} ${id} is already published.`, "already_published");
    if (status === "trash") throw new OperationError(`${type} ${id} is in the trash.`, "in_trash");
    const summary = `Published ${type} ${id} ("${current.title}").`;
    const item = planPostUpdate(current, { status: "publish" }, summary);
    // The card shows everything that becomes visible, not only the status; what is written stays the status.
    item.before = { status };
    item.after = {
      status: "publish",
      title: current.title,
      content: postText(current, "content"),
      ...(postText(current, "excerpt") ? { excerpt: postText(current, "excerpt") } : {}),
      ...(Number(current.state.featured_media) > 0 ? { featured_media: current.state.featured_media } : {}),
    };
    return {
      summary,
      target: { type, id, title: current.title },
      items: [item],
      data: () => ({ id, status: "publish" }),
    };
  },
});
