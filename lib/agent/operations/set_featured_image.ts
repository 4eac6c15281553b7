import { z } from "zod";
import { planPostUpdate } from "@/lib/changes/plan";
import { fileSource, mediaSource } from "./add_image";
import { defineOperation, OperationError } from "./operation";
import { contentType, postId, readPostItem } from "./wordpress";

type Media = { id: number; media_type: string; source_url: string };

export default defineOperation({
  name: "set_featured_image",
  label: "Set a featured image",
  description:
    "Set a page's or post's featured image: mediaId (list_media; 0 removes it) or a file (\"upload:<id>\" or an https address).",
  input: z.object({
    type: contentType,
    id: postId,
    mediaId: z.number().int().min(0).optional(),
    file: fileSource.optional(),
    alt: z.string().max(500).optional(),
  }),
  scope: "content:write",
  risk: "write",
  async plan(client, { type, id, mediaId: given, file, alt }, context) {
    if ((given === undefined) === (file === undefined))
      throw new OperationError("Give either mediaId or file.", "invalid_input");
    const current = await readPostItem(client, type, id);
    let mediaId = given ?? 0;
    if (file !== undefined) {
      if (!context) throw new OperationError("Files cannot be uploaded from here.", "not_available");
      const placed = await context.placeMedia(mediaSource(file), { alt });
      if (!placed.mime.startsWith("image/"))
        throw new OperationError(`${placed.name} is not an image.`, "not_an_image");
      mediaId = placed.id;
    } else if (mediaId > 0) {
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
