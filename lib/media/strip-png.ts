/**
 * PNG metadata, removed at the byte level: text chunks (tEXt, zTXt, iTXt: author, comments, software, XMP),
 * eXIf (camera and GPS position) and tIME go; every other chunk (pixels, palette, colour profile, animation) is kept
 * byte for byte. Bytes after IEND go too.
 */
import { need } from "./broken";

const SIGNATURE_LENGTH = 8;
const METADATA_CHUNKS = new Set(["tEXt", "zTXt", "iTXt", "eXIf", "tIME"]);

export type PngChunk = { type: string; start: number; end: number; dataAt: number; length: number };

export function pngChunks(bytes: Uint8Array): PngChunk[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const chunks: PngChunk[] = [];
  let at = SIGNATURE_LENGTH;
  for (;;) {
    need(at + 12 <= bytes.length, "PNG cut short");
    const length = view.getUint32(at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    need(/^[A-Za-z]{4}$/.test(type), "PNG chunk with a bad type");
    need(length <= 0x7fffffff && at + 12 + length <= bytes.length, "PNG chunk longer than the file");
    const end = at + 12 + length;
    chunks.push({ type, start: at, end, dataAt: at + 8, length });
    at = end;
    if (type === "IEND") break;
  }
  need(chunks[0]?.type === "IHDR" && chunks[0].length === 13, "PNG without a header chunk first");
  need(
    chunks.some((c) => c.type === "IDAT"),
    "PNG without image data",
  );
  return chunks;
}

export function stripPng(bytes: Uint8Array): Uint8Array {
  const kept = pngChunks(bytes).filter((chunk) => !METADATA_CHUNKS.has(chunk.type));
  return Buffer.concat([bytes.subarray(0, SIGNATURE_LENGTH), ...kept.map((c) => bytes.subarray(c.start, c.end))]);
}
