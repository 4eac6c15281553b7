/** Pictures for the media tests, made with sharp, with the metadata a camera or an editor would leave in them. */
import { crc32 } from "node:zlib";
import sharp from "sharp";

export const SECRET = "Owner-private 12 Rue Secrete";

const base = (width = 48, height = 32) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 80, b: 40 } } });

/** A JPEG with EXIF (a description and a GPS position), XMP and a comment. */
export async function jpegWithMetadata(options: { orientation?: number; width?: number; height?: number } = {}) {
  const jpeg = await base(options.width, options.height)
    .jpeg()
    .withExif({
      IFD0: { ImageDescription: SECRET, Artist: SECRET },
      IFD3: { GPSLatitudeRef: "N", GPSLatitude: "48/1 51/1 24/1", GPSLongitudeRef: "E", GPSLongitude: "2/1 21/1 7/1" },
    })
    .withXmp(`<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:Description>${SECRET}</rdf:Description></x:xmpmeta>`)
    .toBuffer();
  const withOrientation = options.orientation
    ? await sharp(jpeg).withMetadata({ orientation: options.orientation }).jpeg().toBuffer()
    : jpeg;
  return insertJpegComment(withOrientation, SECRET);
}

function insertJpegComment(jpeg: Buffer, text: string): Buffer {
  const body = Buffer.from(text);
  const segment = Buffer.concat([Buffer.from([0xff, 0xfe, (body.length + 2) >> 8, (body.length + 2) & 0xff]), body]);
  return Buffer.concat([jpeg.subarray(0, 2), segment, jpeg.subarray(2)]);
}

export function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** A PNG with text (tEXt, zTXt-like iTXt), eXIf and tIME chunks after its header. */
export async function pngWithMetadata() {
  const png = await base().png().toBuffer();
  const ihdrEnd = 8 + 12 + 13;
  const extra = Buffer.concat([
    pngChunk("tEXt", Buffer.from(`Author\0${SECRET}`, "latin1")),
    pngChunk("iTXt", Buffer.from(`XML:com.adobe.xmp\0\0\0\0\0${SECRET}`, "latin1")),
    pngChunk("eXIf", Buffer.concat([Buffer.from("MM\0*\0\0\0\x08", "latin1"), Buffer.from(SECRET)])),
    pngChunk("tIME", Buffer.from([0x07, 0xea, 11, 27, 9, 0, 0])),
  ]);
  return Buffer.concat([png.subarray(0, ihdrEnd), extra, png.subarray(ihdrEnd)]);
}

export async function webpWithMetadata() {
  return base()
    .webp({ lossless: true })
    .withExif({ IFD0: { ImageDescription: SECRET } })
    .withXmp(`<x:xmpmeta xmlns:x="adobe:ns:meta/">${SECRET}</x:xmpmeta>`)
    .toBuffer();
}

/** A GIF with a comment and an XMP application extension before its frame. */
export async function gifWithMetadata() {
  const gif = await base().gif().toBuffer();
  const headerEnd = 13 + ((gif[10]! & 0x80) !== 0 ? 3 * 2 ** ((gif[10]! & 0x07) + 1) : 0);
  const comment = Buffer.concat([Buffer.from([0x21, 0xfe, SECRET.length]), Buffer.from(SECRET), Buffer.from([0])]);
  const xmp = Buffer.concat([
    Buffer.from([0x21, 0xff, 11]),
    Buffer.from("XMP DataXMP"),
    Buffer.from([SECRET.length]),
    Buffer.from(SECRET),
    Buffer.from([0]),
  ]);
  return Buffer.concat([gif.subarray(0, headerEnd), comment, xmp, gif.subarray(headerEnd)]);
}

/** The decoded pixels, to show a stripped file is the same picture. */
export async function pixels(bytes: Uint8Array) {
  return sharp(bytes).raw().toBuffer();
}
