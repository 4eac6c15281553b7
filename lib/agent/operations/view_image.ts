import { z } from "zod";
import { fetchImageForModel, mediaImage, rememberLooked } from "../vision";
import { defineOperation, OperationError } from "./operation";

/** Offered only when the operator says the model can see images (AGENT_VISION; lib/agent/registry.ts). */
export default defineOperation({
  name: "view_image",
  label: "Look at an image",
  description: "Look at a media library image (ids: list_media), e.g. before writing its alt text.",
  input: z.object({ id: z.number().int().positive() }),
  scope: "content:read",
  risk: "read",
  vision: true,
  async run(client, { id }) {
    const media = await mediaImage(client, id);
    if (!media) throw new OperationError(`Media ${id} is not an image.`, "not_an_image");
    const { url, title } = media;
    const image = await fetchImageForModel(url);
    rememberLooked(url, image);
    return {
      summary: `Looked at media ${id} ("${title}").`,
      target: { type: "media", id, title },
      data: { id, title, lookedAt: url, width: image.width, height: image.height },
    };
  },
});
