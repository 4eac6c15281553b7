import { z } from "zod";
import { defineOperation, OperationError } from "./operation";
import { contentType, fetchEditable, postId, saveEditable, targetOf } from "./wordpress";

export default defineOperation({
  name: "publish_page",
  description:
    "Publish a draft (or pending/private) page or post so that visitors can see it. The user must approve this in the chat before it runs.",
  input: z.object({ type: contentType, id: postId }),
  scope: "content:write",
  risk: "destructive",
  async run(client, { type, id }) {
    const current = await fetchEditable(client, type, id);
    if (current.status === "publish") throw new OperationError(`${type} ${id} is already published.`, "already_published");
    if (current.status === "trash") throw new OperationError(`${type} ${id} is in the trash.`, "in_trash");
    const saved = await saveEditable(client, type, id, { status: "publish" });
    return {
      summary: `Published ${type} ${id} ("${current.title.raw}").`,
      target: targetOf(type, { ...current, link: saved.link ?? current.link }),
      before: { status: current.status },
      after: { status: saved.status ?? "publish" },
    };
  },
});
