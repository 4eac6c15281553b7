/**
 * JPEG metadata, removed at the byte level (the picture's bytes are kept exactly): every APPn segment but the ones
 * a decoder needs (APP0 JFIF, APP2 ICC profile, APP14 Adobe colour transform) and every COM segment go, wherever
 * they are (progressive files may carry segments between scans). EXIF (camera, GPS position, time), XMP and
 * Photoshop/IPTC blocks live in APP1 and APP13.
 */
import { need } from "./broken";

const SOI = 0xd8;
const EOI = 0xd9;
const SOS = 0xda;
const COM = 0xfe;

const startsWithText = (bytes: Uint8Array, at: number, text: string) =>
  [...text].every((c, i) => bytes[at + i] === c.charCodeAt(0));

/** APPn segments a decoder needs, by marker and identifier; every other APPn is metadata. */
function isEssentialApp(marker: number, bytes: Uint8Array, dataAt: number): boolean {
  if (marker === 0xe0) return startsWithText(bytes, dataAt, "JFIF\0");
  if (marker === 0xe2) return startsWithText(bytes, dataAt, "ICC_PROFILE\0");
  if (marker === 0xee) return startsWithText(bytes, dataAt, "Adobe");
  return false;
}

const isApp = (marker: number) => marker >= 0xe0 && marker <= 0xef;
/** Markers without a length: RSTn, TEM (SOI and EOI are handled apart). */
const standalone = (marker: number) => (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01;

/** Where the entropy-coded data after a scan header ends: the next marker that is not a stuffed byte or a restart. */
function endOfScan(bytes: Uint8Array, from: number): number {
  for (let i = from; i < bytes.length - 1; i++) {
    if (bytes[i] !== 0xff) continue;
    const next = bytes[i + 1]!;
    if (next === 0x00 || next === 0xff || (next >= 0xd0 && next <= 0xd7)) continue;
    return i;
  }
  return bytes.length;
}

export type JpegSegment = { marker: number; start: number; end: number; dataAt: number };

/** The file's segments in order (scan data belongs to its SOS segment); throws BrokenMediaError when malformed. */
export function jpegSegments(bytes: Uint8Array): JpegSegment[] {
  need(bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === SOI, "not a JPEG: no start-of-image marker");
  const segments: JpegSegment[] = [{ marker: SOI, start: 0, end: 2, dataAt: 2 }];
  let at = 2;
  for (;;) {
    need(at < bytes.length && bytes[at] === 0xff, "JPEG segment without a marker");
    while (at < bytes.length && bytes[at] === 0xff) at++; // fill bytes
    need(at < bytes.length, "JPEG cut short");
    const marker = bytes[at]!;
    const start = at - 1;
    at++;
    if (marker === EOI) {
      segments.push({ marker, start, end: at, dataAt: at });
      return segments;
    }
    if (standalone(marker)) {
      segments.push({ marker, start, end: at, dataAt: at });
      continue;
    }
    need(at + 2 <= bytes.length, "JPEG cut short in a segment length");
    const length = (bytes[at]! << 8) | bytes[at + 1]!;
    need(length >= 2 && at + length <= bytes.length, "JPEG segment longer than the file");
    const dataAt = at + 2;
    at += length;
    if (marker === SOS) at = endOfScan(bytes, at);
    segments.push({ marker, start, end: at, dataAt });
    if (at >= bytes.length) return segments; // no EOI: decoders accept it, and so do we
  }
}

/** The JPEG without its metadata segments; everything else byte for byte. */
export function stripJpeg(bytes: Uint8Array): Uint8Array {
  const kept = jpegSegments(bytes).filter(
    (s) => s.marker !== COM && !(isApp(s.marker) && !isEssentialApp(s.marker, bytes, s.dataAt)),
  );
  need(
    kept.some((s) => s.marker === SOS),
    "JPEG without image data",
  );
  return Buffer.concat(kept.map((s) => bytes.subarray(s.start, s.end)));
}

/** The EXIF orientation (1–8) of a JPEG, 1 when it has none: stripping EXIF loses it, so the pixels must turn. */
export function jpegOrientation(bytes: Uint8Array): number {
  for (const segment of jpegSegments(bytes)) {
    if (segment.marker !== 0xe1 || !startsWithText(bytes, segment.dataAt, "Exif\0\0")) continue;
    return tiffOrientation(bytes.subarray(segment.dataAt + 6, segment.end)) ?? 1;
  }
  return 1;
}

function tiffOrientation(tiff: Uint8Array): number | undefined {
  if (tiff.length < 8) return undefined;
  const little = tiff[0] === 0x49 && tiff[1] === 0x49;
  const view = new DataView(tiff.buffer, tiff.byteOffset, tiff.byteLength);
  const u16 = (at: number) => (at + 2 <= tiff.length ? view.getUint16(at, little) : undefined);
  const u32 = (at: number) => (at + 4 <= tiff.length ? view.getUint32(at, little) : undefined);
  const ifd = u32(4);
  const count = ifd === undefined ? undefined : u16(ifd);
  if (ifd === undefined || count === undefined) return undefined;
  for (let i = 0; i < count; i++) {
    const entry = ifd + 2 + i * 12;
    if (u16(entry) !== 0x0112) continue;
    const value = u16(entry + 8);
    return value !== undefined && value >= 1 && value <= 8 ? value : undefined;
  }
  return undefined;
}
