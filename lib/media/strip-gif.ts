/**
 * GIF metadata, removed at the byte level: comment extensions and application extensions other than the ones that
 * play the picture (NETSCAPE2.0 / ANIMEXTS1.0 looping) or colour it (ICC profile) go, XMP among them; frames and
 * their graphic controls are kept byte for byte. Bytes after the trailer go too.
 */
import { need } from "./broken";

const KEPT_APPLICATIONS = new Set(["NETSCAPE2.0", "ANIMEXTS1.0", "ICCRGBG1012"]);

/** The end of a run of sub-blocks starting at `at` (after its 0 terminator). */
function subBlocksEnd(bytes: Uint8Array, at: number): number {
  let i = at;
  for (;;) {
    need(i < bytes.length, "GIF cut short in a data block");
    const size = bytes[i]!;
    i += 1 + size;
    if (size === 0) return i;
  }
}

const colorTableSize = (packed: number) => ((packed & 0x80) !== 0 ? 3 * 2 ** ((packed & 0x07) + 1) : 0);

export function stripGif(bytes: Uint8Array): Uint8Array {
  need(bytes.length >= 13, "GIF cut short");
  const headerEnd = 13 + colorTableSize(bytes[10]!);
  need(headerEnd <= bytes.length, "GIF cut short in its colour table");
  const kept: Uint8Array[] = [bytes.subarray(0, headerEnd)];
  let at = headerEnd;
  let frames = 0;
  for (;;) {
    need(at < bytes.length, "GIF without a trailer");
    const introducer = bytes[at]!;
    if (introducer === 0x3b) {
      kept.push(bytes.subarray(at, at + 1));
      break;
    }
    if (introducer === 0x2c) {
      need(at + 10 <= bytes.length, "GIF cut short in an image descriptor");
      const dataAt = at + 10 + colorTableSize(bytes[at + 9]!) + 1; // + LZW minimum code size
      const end = subBlocksEnd(bytes, dataAt);
      kept.push(bytes.subarray(at, end));
      frames++;
      at = end;
      continue;
    }
    need(introducer === 0x21 && at + 2 <= bytes.length, "GIF block of an unknown kind");
    const label = bytes[at + 1]!;
    const end = subBlocksEnd(bytes, at + 2);
    const application =
      label === 0xff && bytes[at + 2] === 11 ? String.fromCharCode(...bytes.subarray(at + 3, at + 14)) : undefined;
    const metadata = label === 0xfe || (label === 0xff && !KEPT_APPLICATIONS.has(application ?? ""));
    if (!metadata) kept.push(bytes.subarray(at, end));
    at = end;
  }
  need(frames > 0, "GIF without image data");
  return Buffer.concat(kept);
}
