import { z } from "zod";
import { planPostUpdate } from "@/lib/changes/plan";
import { asStoredMarkup } from "@/lib/wordpress/stored-text";
import { BlockEditError, insertBlock, parseBlocks } from "../blocks";
import { defineOperation, OperationError, type MediaSource, type PlacedMedia } from "./operation";
import { contentType, postId, postText, readPostItem } from "./wordpress";

/** `upload:<id>` (a file the owner attached in the chat) or an https address. */
export const fileSource = z
  .string()
  .max(2000)
  .regex(/^(upload:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|https:\/\/\S+)$/)
  .describe('"upload:<id>" or an https address');

export const mediaSource = (file: string): MediaSource =>
  file.startsWith("upload:") ? { uploadId: file.slice("upload:".length) } : { url: file };

const escapeAttribute = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const escapeText = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** The block WordPress's editor would make for the attachment: an image block, or a file block for a PDF. */
export function mediaBlock(media: PlacedMedia, caption?: string): string {
  const url = escapeAttribute(media.url);
  if (!media.mime.startsWith("image/")) {
    const attrs = JSON.stringify({ id: media.id, href: media.url });
    return `<!-- wp:file ${attrs} -->\n<div class="wp-block-file"><a href="${url}">${escapeText(media.name)}</a></div>\n<!-- /wp:file -->`;
  }
  const attrs = JSON.stringify({ id: media.id, sizeSlug: "full", linkDestination: "none" });
  const figcaption = caption ? `<figcaption class="wp-element-caption">${escapeText(caption)}</figcaption>` : "";
  return `<!-- wp:image ${attrs} -->\n<figure class="wp-block-image size-full"><img src="${url}" alt="${escapeAttribute(media.alt)}" class="wp-image-${media.id}" />${figcaption}</figure>\n<!-- /wp:image -->`;
}

/** Where the block goes: "start" is before the first block, or at the end of an empty page. */
function insertAt(content: string, position: string, where: "before" | "after", markup: string): string {
  try {
    if (position === "start") {
      return parseBlocks(content).some((b) => b.name !== null)
        ? insertBlock(content, "1", "before", markup)
        : insertBlock(content, "end", "after", markup);
    }
    return insertBlock(content, position, where, markup);
  } catch (error) {
    if (error instanceof BlockEditError) throw new OperationError(error.message, "bad_block");
    throw error;
  }
}

export default defineOperation({
  name: "add_image",
  label: "Add an image",
  description:
    'Add an image (or a PDF link) to a page or post from a chat file ("upload:<id>") or an https address. Give alt text.',
  input: z.object({
    type: contentType,
    id: postId,
    file: fileSource,
    position: z
      .string()
      .regex(/^(start|end|[1-9]\d*(\.[1-9]\d*)*)$/)
      .default("end")
      .describe('"start", "end" or an outline position'),
    where: z.enum(["before", "after"]).default("after"),
    alt: z.string().max(500),
    caption: z.string().max(1000).optional(),
  }),
  // Both halves need their scope: content:write for the block, media:write (which lends upload_files) for the file.
  scope: "content:write",
  capabilities: ["upload_files"],
  risk: "write",
  pluginFeature: "media_upload",
  async plan(client, input, context) {
    if (!context) throw new OperationError("Files cannot be uploaded from here.", "not_available");
    const current = await readPostItem(client, input.type, input.id);
    const content = postText(current, "content");
    insertAt(content, input.position, input.where, "<!-- wp:separator /-->"); // the position exists: nothing is uploaded for a wrong one
    const media = await context.placeMedia(mediaSource(input.file), { alt: input.alt, caption: input.caption });
    const markup = asStoredMarkup(mediaBlock(media, input.caption));
    const next = insertAt(content, input.position, input.where, markup);
    const what = media.mime.startsWith("image/") ? "an image" : "a link to a file";
    const summary = `Added ${what} (${media.name}) to ${input.type} ${input.id}.`;
    return {
      summary,
      target: { type: input.type, id: input.id, title: current.title },
      items: [planPostUpdate(current, { content: next }, summary)],
      data: () => ({ id: input.id, mediaId: media.id, url: media.url }),
    };
  },
});
