import { z } from "zod";
import { defineOperation } from "./operation";
import { contentType, fetchEditable, postId, routeFor, targetOf } from "./wordpress";

export default defineOperation({
  name: "trash_page",
  description:
    "Move a page or post to the trash (it can be restored from WordPress's trash for 30 days). The user must approve this in the chat before it runs.",
  input: z.object({ type: contentType, id: postId }),
  scope: "content:write",
  risk: "destructive",
  async run(client, { type, id }) {
    const current = await fetchEditable(client, type, id);
    const { data } = await client.delete<{ status?: string }>(`${routeFor(type)}/${id}`);
    return {
      summary: `Moved ${type} ${id} ("${current.title.raw}") to the trash.`,
      target: targetOf(type, current),
      before: { status: current.status },
      after: { status: data?.status ?? "trash" },
    };
  },
});
