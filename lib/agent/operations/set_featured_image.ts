import { z } from "zod";
import { planPostUpdate } from "@/lib/changes/plan";
import { defineOperation, OperationError } from "./operation";
import { contentType, postId, readPostItem } from "./wordpress";

type Media = { id: number; media_type: string; source_url: string };

export default defineOperation({
  name: "set_featured_image",
  label: "Set a featured image",
  description: "Set (or with mediaId 0 remove) the featured image of a page or post; ids from list_media.",
  input: z.object({
    type: contentType,
    id: postId,
    mediaId: z.number().int().min(0).describe("0 removes it"),
  }),
  scope: "content:write",
  risk: "write",
  async plan(client, { type, id, mediaId }) {
    const current = await readPostItem(client, type, id);
    if (mediaId > 0) {
      const media = (await client.get<Media>(`/wp/v2/media/${mediaId}`, { _fields: "id,media_type,source_url" })).data;
      if (media?.media_type !== "image") throw new OperationError(`Media ${mediaId} is not an image.`, "not_an_image");
    }
    const summary =
      mediaId > 0
        ? `Set the featured image of ${type} ${id} to media ${mediaId}.`
        : `Removed the featured image of ${type} ${id}.`;
    const item = planPostUpdate(current, { featured_media: mediaId }, summary);
    if (Object.keys(item.change.fields ?? {}).length === 0)
      throw new OperationError(`${type} ${id} already has this featured image.`, "no_change");
    return { summary, target: { type, id, title: current.title }, items: [item], data: () => ({ id, mediaId }) };
  },
});
