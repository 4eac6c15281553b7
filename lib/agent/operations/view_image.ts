import { z } from "zod";
import { fetchImageForModel, rememberLooked, VISION_SIDE } from "../vision";
import { defineOperation, OperationError } from "./operation";

type Size = { source_url?: string; width?: number; height?: number };
type Media = {
  id: number;
  title?: { rendered?: string };
  source_url?: string;
  mime_type?: string;
  media_type?: string;
  media_details?: { sizes?: Record<string, Size> };
};

/** The smallest copy WordPress made that is still at least VISION_SIDE on its longer side, else the original. */
function addressToFetch(media: Media): string | undefined {
  const big = Object.values(media.media_details?.sizes ?? {})
    .filter((s) => s.source_url && Math.max(s.width ?? 0, s.height ?? 0) >= VISION_SIDE)
    .sort((a, b) => (a.width ?? 0) * (a.height ?? 0) - (b.width ?? 0) * (b.height ?? 0));
  return big[0]?.source_url ?? media.source_url;
}

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
    const { data: media } = await client.get<Media>(`/wp/v2/media/${id}`, {
      _fields: "id,title,source_url,mime_type,media_type,media_details",
    });
    const url = addressToFetch(media);
    if (media?.media_type !== "image" || !url) throw new OperationError(`Media ${id} is not an image.`, "not_an_image");
    const image = await fetchImageForModel(url);
    rememberLooked(url, image);
    const title = media.title?.rendered ?? "";
    return {
      summary: `Looked at media ${id} ("${title}").`,
      target: { type: "media", id, title },
      data: { id, title, lookedAt: url, width: image.width, height: image.height },
    };
  },
});
