/**
 * WebP metadata, removed at the byte level: the EXIF and XMP chunks of an extended (VP8X) file go and the header's
 * flags for them are cleared; the picture, alpha, animation and colour profile chunks are kept byte for byte.
 */
import { need } from "./broken";

const EXIF_FLAG = 0x08;
const XMP_FLAG = 0x04;

type Chunk = { fourcc: string; start: number; end: number };

function webpChunks(bytes: Uint8Array): Chunk[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  need(bytes.length >= 20, "WebP cut short");
  const riffEnd = Math.min(bytes.length, 8 + view.getUint32(4, true));
  const chunks: Chunk[] = [];
  let at = 12;
  while (at + 8 <= riffEnd) {
    const fourcc = String.fromCharCode(...bytes.subarray(at, at + 4));
    const size = view.getUint32(at + 4, true);
    const end = at + 8 + size + (size % 2);
    need(end <= bytes.length || at + 8 + size === bytes.length, "WebP chunk longer than the file");
    chunks.push({ fourcc, start: at, end: Math.min(end, bytes.length) });
    at = end;
  }
  need(
    chunks.some((c) => c.fourcc === "VP8 " || c.fourcc === "VP8L" || c.fourcc === "ANIM"),
    "WebP without image data",
  );
  return chunks;
}

export function stripWebp(bytes: Uint8Array): Uint8Array {
  const kept = webpChunks(bytes).filter((c) => c.fourcc !== "EXIF" && c.fourcc !== "XMP ");
  const parts = kept.map((c) => {
    const chunk = Buffer.from(bytes.subarray(c.start, c.end));
    if (c.fourcc === "VP8X" && chunk.length > 8) chunk[8] = chunk[8]! & ~(EXIF_FLAG | XMP_FLAG);
    return chunk;
  });
  const body = Buffer.concat(parts);
  const header = Buffer.from(bytes.subarray(0, 12));
  header.writeUInt32LE(4 + body.length, 4);
  return Buffer.concat([header, body]);
}
