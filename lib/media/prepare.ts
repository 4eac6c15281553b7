/**
 * What happens to a file before Sitewright keeps it (docs/media.md): its kind is read from its bytes, metadata the
 * owner did not mean to publish is removed byte for byte (so the picture is not re-encoded), and only when needed
 * the picture is re-encoded with sharp: turned upright when its EXIF orientation said so (that orientation is
 * lost with the EXIF), or scaled down when its longest side is over MAX_IMAGE_SIDE (WordPress's own big-image
 * threshold). A re-encoded picture carries no metadata either. PDFs are kept as they are.
 */
import { loadSharp } from "@/lib/media/sharp";
import { AppError } from "@/lib/errors";
import { BrokenMediaError, isBrokenMediaError } from "./broken";
import { MEDIA_TYPES, type MediaKind, sniffMedia } from "./sniff";
import { stripGif } from "./strip-gif";
import { jpegOrientation, stripJpeg } from "./strip-jpeg";
import { stripPng } from "./strip-png";
import { stripWebp } from "./strip-webp";

/** Longer sides are scaled down to this (WordPress's `big_image_size_threshold`). */
export const MAX_IMAGE_SIDE = 2560;
/** A picture of more pixels than this is refused before it is decoded (a "decompression bomb"). */
const MAX_PIXELS = 100_000_000;

export type PreparedMedia = {
  kind: MediaKind;
  mime: string;
  extension: string;
  bytes: Buffer;
  width?: number;
  height?: number;
};

const STRIP: Record<Exclude<MediaKind, "pdf">, (bytes: Uint8Array) => Uint8Array> = {
  jpeg: stripJpeg,
  png: stripPng,
  gif: stripGif,
  webp: stripWebp,
};

export const unsupported = (why: string) =>
  new AppError(
    "unsupported_media_type",
    `This file cannot be used: ${why} Attach a PNG, JPEG, GIF or WebP image, or a PDF.`,
  );

/** Strips metadata; a file that is not what its first bytes say is refused as unsupported. */
export function stripMetadata(kind: Exclude<MediaKind, "pdf">, bytes: Uint8Array): Buffer {
  try {
    return Buffer.from(STRIP[kind](bytes));
  } catch (error) {
    if (isBrokenMediaError(error)) throw unsupported(`it looks like a ${kind.toUpperCase()} image but is damaged.`);
    throw error;
  }
}

async function dimensions(kind: MediaKind, bytes: Buffer) {
  try {
    const meta = await (await loadSharp())(bytes, {
      animated: kind === "gif" || kind === "webp",
      limitInputPixels: MAX_PIXELS,
    }).metadata();
    if (!meta.width || !meta.height) throw new BrokenMediaError("no size");
    return { width: meta.width, height: meta.pageHeight ?? meta.height };
  } catch {
    throw unsupported(`the ${kind.toUpperCase()} image could not be read.`);
  }
}

async function reencode(kind: Exclude<MediaKind, "pdf">, original: Uint8Array): Promise<Buffer> {
  const animated = kind === "gif" || kind === "webp";
  try {
    const image = (await loadSharp())(original, { animated, limitInputPixels: MAX_PIXELS })
      .rotate() // upright, from the EXIF orientation
      .resize({ width: MAX_IMAGE_SIDE, height: MAX_IMAGE_SIDE, fit: "inside", withoutEnlargement: true });
    const out =
      kind === "jpeg"
        ? image.jpeg({ quality: 90 })
        : kind === "png"
          ? image.png()
          : kind === "webp"
            ? image.webp({ quality: 90 })
            : image.gif();
    return await out.toBuffer();
  } catch {
    throw unsupported(`the ${kind.toUpperCase()} image could not be read.`);
  }
}

/** Checks, cleans and (when needed) scales a file the owner gave; throws `415 unsupported_media_type`. */
export async function prepareMedia(input: Uint8Array): Promise<PreparedMedia> {
  const kind = sniffMedia(input);
  if (!kind) throw unsupported("its content is not an image or a PDF, whatever its name says.");
  const { mime, extension } = MEDIA_TYPES[kind];
  if (kind === "pdf") return { kind, mime, extension, bytes: Buffer.from(input) };
  let bytes = stripMetadata(kind, input);
  let size = await dimensions(kind, bytes);
  const turned = kind === "jpeg" && jpegOrientation(input) !== 1;
  if (turned || Math.max(size.width, size.height) > MAX_IMAGE_SIDE) {
    // sharp writes no metadata unless asked; stripping again keeps that a fact we check, not a default we trust.
    bytes = stripMetadata(kind, await reencode(kind, input));
    size = await dimensions(kind, bytes);
  }
  return { kind, mime, extension, bytes, ...size };
}

/** The name shown to the owner and given to WordPress: the base name, plain characters, the true extension. */
export function mediaFileName(name: string, extension: string): string {
  const base = (name.split(/[\\/]/).pop() ?? "")
    .normalize("NFC")
    .replace(/\.[^.]*$/, "")
    .replace(/[^\p{L}\p{N} ._()-]+/gu, "-")
    .replace(/^[.\s-]+|[.\s-]+$/g, "")
    .slice(0, 120);
  return `${base || "file"}.${extension}`;
}
