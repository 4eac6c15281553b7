/**
 * What a file is, by its first bytes (never by its name or the type the browser claimed): the kinds the owner may
 * attach in the chat (docs/media.md). Anything else is `415 unsupported_media_type`.
 */

export type MediaKind = "png" | "jpeg" | "gif" | "webp" | "pdf";

export const MEDIA_TYPES: Record<MediaKind, { mime: string; extension: string; image: boolean }> = {
  png: { mime: "image/png", extension: "png", image: true },
  jpeg: { mime: "image/jpeg", extension: "jpg", image: true },
  gif: { mime: "image/gif", extension: "gif", image: true },
  webp: { mime: "image/webp", extension: "webp", image: true },
  pdf: { mime: "application/pdf", extension: "pdf", image: false },
};

const startsWith = (bytes: Uint8Array, prefix: readonly number[], at = 0) =>
  bytes.length >= at + prefix.length && prefix.every((byte, i) => bytes[at + i] === byte);

const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];

/** The kind of file these bytes are, or undefined when they are none we accept. */
export function sniffMedia(bytes: Uint8Array): MediaKind | undefined {
  if (startsWith(bytes, PNG)) return "png";
  if (startsWith(bytes, JPEG)) return "jpeg";
  if (startsWith(bytes, ascii("GIF87a")) || startsWith(bytes, ascii("GIF89a"))) return "gif";
  if (startsWith(bytes, ascii("RIFF")) && startsWith(bytes, ascii("WEBP"), 8)) return "webp";
  if (startsWith(bytes, ascii("%PDF-"))) return "pdf";
  return undefined;
}
