import { z } from "zod";
import { defineOperation, OperationError } from "./operation";
import { contentType, fetchEditable, postId, saveEditable, targetOf } from "./wordpress";

type Media = { id: number; media_type: string; source_url: string };

export default defineOperation({
  name: "set_featured_image",
  description: "Set the featured image of a page or post to an image from the media library (see list_media), or remove it with mediaId 0.",
  input: z.object({
    type: contentType,
    id: postId,
    mediaId: z.number().int().min(0).describe("The media library ID of the image; 0 removes the featured image"),
  }),
  scope: "content:write",
  risk: "write",
  async run(client, { type, id, mediaId }) {
    const current = await fetchEditable(client, type, id);
    let url: string | undefined;
    if (mediaId > 0) {
      const media = (await client.get<Media>(`/wp/v2/media/${mediaId}`, { _fields: "id,media_type,source_url" })).data;
      if (media?.media_type !== "image") throw new OperationError(`Media ${mediaId} is not an image.`, "not_an_image");
      url = media.source_url;
    }
    await saveEditable(client, type, id, { featured_media: mediaId });
    return {
      summary: mediaId > 0 ? `Set the featured image of ${type} ${id} to media ${mediaId}.` : `Removed the featured image of ${type} ${id}.`,
      target: targetOf(type, current),
      before: { mediaId: current.featured_media ?? 0 },
      after: { mediaId, url },
    };
  },
});
