/**
 * Whatever bytes arrive, preparing them ends in a prepared file or `415 unsupported_media_type`, never another
 * error (which the route would answer with a 5xx); and a picture's metadata chunks, wherever they sit, are gone
 * while its pixels stay.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isAppError } from "@/lib/errors";
import { prepareMedia } from "./prepare";
import { stripPng } from "./strip-png";
import { stripJpeg } from "./strip-jpeg";
import { SECRET, jpegWithMetadata, pixels, pngChunk, pngWithMetadata } from "./testing";

const MAGIC = [
  [],
  [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
  [0xff, 0xd8, 0xff],
  [...Buffer.from("GIF89a")],
  [...Buffer.from("RIFF\0\0\0\0WEBP")],
  [...Buffer.from("%PDF-")],
];

async function outcome(bytes: Uint8Array): Promise<"ok" | "unsupported"> {
  try {
    await prepareMedia(bytes);
    return "ok";
  } catch (error) {
    if (isAppError(error) && error.code === "unsupported_media_type") return "unsupported";
    throw error;
  }
}

describe("preparing any bytes", () => {
  it("never fails other than as unsupported, for random bytes behind each kind's first bytes", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...MAGIC), fc.uint8Array({ maxLength: 600 }), async (magic, rest) => {
        const bytes = Buffer.concat([Buffer.from(magic), rest]);
        expect(["ok", "unsupported"]).toContain(await outcome(bytes));
      }),
      { numRuns: 300 },
    );
  });

  it("never fails other than as unsupported, for real pictures with bytes flipped or cut", async () => {
    const samples = [await jpegWithMetadata(), await pngWithMetadata()];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(0, 1),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 8 }),
        fc.option(fc.nat()),
        async (which, flips, cut) => {
          const bytes = Buffer.from(samples[which]!);
          for (const [at, value] of flips) bytes[at % bytes.length] = value;
          const input = cut === null ? bytes : bytes.subarray(0, cut % bytes.length);
          expect(["ok", "unsupported"]).toContain(await outcome(input));
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("stripping keeps the picture and drops the metadata", () => {
  it("drops text chunks put anywhere between a PNG's header and its end", async () => {
    const clean = stripPng(await pngWithMetadata());
    const cleanPixels = await pixels(clean);
    const ihdrEnd = 8 + 12 + 13;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom("tEXt", "iTXt", "zTXt", "eXIf", "tIME"), { minLength: 1, maxLength: 4 }),
        fc.string({ maxLength: 40 }),
        async (types, text) => {
          const extra = types.map((type) => pngChunk(type, Buffer.from(`k\0${SECRET}${text}`, "utf8")));
          const dirty = Buffer.concat([clean.subarray(0, ihdrEnd), ...extra, clean.subarray(ihdrEnd)]);
          const stripped = stripPng(dirty);
          expect(Buffer.compare(Buffer.from(stripped), clean)).toBe(0);
          expect(await pixels(stripped)).toEqual(cleanPixels);
        },
      ),
      { numRuns: 50 },
    );
  });

  it("drops APPn and comment segments of a JPEG whatever they hold", async () => {
    const clean = stripJpeg(await jpegWithMetadata());
    await fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(0xe1, 0xe3, 0xe9, 0xed, 0xef, 0xfe), fc.uint8Array({ maxLength: 200 })), {
          maxLength: 5,
        }),
        (segments) => {
          const extra = segments.map(([marker, data]) => {
            const length = data.length + 2;
            return Buffer.concat([Buffer.from([0xff, marker, length >> 8, length & 0xff]), data]);
          });
          const dirty = Buffer.concat([clean.subarray(0, 2), ...extra, clean.subarray(2)]);
          expect(Buffer.compare(Buffer.from(stripJpeg(dirty)), Buffer.from(clean))).toBe(0);
        },
      ),
      { numRuns: 200 },
    );
  });
});
