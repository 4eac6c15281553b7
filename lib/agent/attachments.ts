/**
 * How the model hears of the owner's attachments: one line per file, in Sitewright's words, with the id it passes
 * to add_image or set_featured_image. The file's name is the owner's own text.
 */
import type { TextPart } from "ai";
import type { Attachment } from "./chat-message";

const kilobytes = (size: number) => `${Math.max(1, Math.round(size / 1024))} KB`;

export function attachmentForModel(attachment: Attachment): string {
  const kind = attachment.type.startsWith("image/") ? "image" : "file";
  const size = attachment.width && attachment.height ? `, ${attachment.width}×${attachment.height}` : "";
  return `The owner attached ${kind} upload:${attachment.id} (${attachment.name}, ${attachment.type}, ${kilobytes(attachment.size)}${size}).`;
}

/** For `convertToModelMessages`: attachment parts become that line; other data parts stay out of the prompt. */
export function dataPartForModel(part: { type: string; data: unknown }): TextPart | undefined {
  if (part.type !== "data-attachment") return undefined;
  return { type: "text", text: attachmentForModel(part.data as Attachment) };
}
