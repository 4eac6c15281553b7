import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { isAppError } from "@/lib/errors";
import { MAX_IMAGE_SIDE, mediaFileName, prepareMedia } from "./prepare";
import { sniffMedia } from "./sniff";
import { jpegOrientation, stripJpeg } from "./strip-jpeg";
import { pngChunks, stripPng } from "./strip-png";
import { stripWebp } from "./strip-webp";
import { stripGif } from "./strip-gif";
import { SECRET, gifWithMetadata, jpegWithMetadata, pixels, pngWithMetadata, webpWithMetadata } from "./testing";

const has = (bytes: Uint8Array, text: string) => Buffer.from(bytes).includes(Buffer.from(text));

describe("what a file is, by its bytes", () => {
  it("knows PNG, JPEG, GIF, WebP and PDF, and nothing else", async () => {
    expect(sniffMedia(await pngWithMetadata())).toBe("png");
    expect(sniffMedia(await jpegWithMetadata())).toBe("jpeg");
    expect(sniffMedia(await gifWithMetadata())).toBe("gif");
    expect(sniffMedia(await webpWithMetadata())).toBe("webp");
    expect(sniffMedia(Buffer.from("%PDF-1.7\n%%EOF"))).toBe("pdf");
    expect(sniffMedia(Buffer.from("just some text, named photo.png"))).toBeUndefined();
    expect(sniffMedia(Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>"))).toBeUndefined();
    expect(sniffMedia(new Uint8Array())).toBeUndefined();
  });
});

describe("metadata the owner did not mean to publish is removed, the picture kept", () => {
  it("takes EXIF (with the GPS position), XMP and comments out of a JPEG, pixel for pixel the same", async () => {
    const original = await jpegWithMetadata();
    expect((await sharp(original).metadata()).exif).toBeDefined();
    expect(has(original, SECRET)).toBe(true);
    const stripped = stripJpeg(original);
    expect(has(stripped, SECRET)).toBe(false);
    const meta = await sharp(stripped).metadata();
    expect(meta.exif).toBeUndefined();
    expect(meta.xmp).toBeUndefined();
    expect(await pixels(stripped)).toEqual(await pixels(original));
  });

  it("takes text, XMP, eXIf and time chunks out of a PNG, pixel for pixel the same", async () => {
    const original = await pngWithMetadata();
    const stripped = stripPng(original);
    expect(has(stripped, SECRET)).toBe(false);
    expect(pngChunks(stripped).map((c) => c.type)).not.toEqual(
      expect.arrayContaining([expect.stringMatching(/tEXt|iTXt|eXIf|tIME/)]),
    );
    expect(await pixels(stripped)).toEqual(await pixels(original));
  });

  it("takes EXIF and XMP out of a WebP and clears their flags", async () => {
    const original = await webpWithMetadata();
    expect(has(original, SECRET)).toBe(true);
    const stripped = stripWebp(original);
    expect(has(stripped, SECRET)).toBe(false);
    const meta = await sharp(stripped).metadata();
    expect(meta.exif).toBeUndefined();
    expect(meta.xmp).toBeUndefined();
    expect(await pixels(stripped)).toEqual(await pixels(original));
  });

  it("takes comments and XMP out of a GIF", async () => {
    const original = await gifWithMetadata();
    const stripped = stripGif(original);
    expect(has(stripped, SECRET)).toBe(false);
    expect(await pixels(stripped)).toEqual(await pixels(original));
  });
});

describe("preparing an attachment", () => {
  it("turns a photo upright when its EXIF said it was taken sideways, and keeps no EXIF", async () => {
    const sideways = await jpegWithMetadata({ orientation: 6, width: 60, height: 20 });
    expect(jpegOrientation(sideways)).toBe(6);
    const prepared = await prepareMedia(sideways);
    expect({ width: prepared.width, height: prepared.height }).toEqual({ width: 20, height: 60 });
    expect((await sharp(prepared.bytes).metadata()).exif).toBeUndefined();
    expect(has(prepared.bytes, SECRET)).toBe(false);
  });

  it(`scales a picture whose longest side is over ${MAX_IMAGE_SIDE} px down to it`, async () => {
    const big = await sharp({ create: { width: 3000, height: 1000, channels: 3, background: "#123456" } })
      .png()
      .toBuffer();
    const prepared = await prepareMedia(big);
    expect(prepared).toMatchObject({ kind: "png", mime: "image/png", width: MAX_IMAGE_SIDE, height: 853 });
  });

  it("keeps a small clean picture byte for byte", async () => {
    const clean = await sharp({ create: { width: 10, height: 10, channels: 3, background: "#fff" } })
      .png()
      .toBuffer();
    const prepared = await prepareMedia(clean);
    expect(Buffer.compare(prepared.bytes, clean)).toBe(0);
    expect(prepared).toMatchObject({ width: 10, height: 10, extension: "png" });
  });

  it("refuses text named like a picture, and a damaged JPEG, as unsupported", async () => {
    for (const bytes of [Buffer.from("hello, I am photo.png"), (await jpegWithMetadata()).subarray(0, 300)]) {
      const error = await prepareMedia(bytes).catch((e: unknown) => e);
      expect(isAppError(error) && error.code).toBe("unsupported_media_type");
    }
  });

  it("names the file by its true kind", () => {
    expect(mediaFileName("C:\\Users\\me\\Holiday photo.PNG", "jpg")).toBe("Holiday photo.jpg");
    expect(mediaFileName("../../etc/passwd", "pdf")).toBe("passwd.pdf");
    expect(mediaFileName("<script>.gif", "gif")).toBe("script.gif");
    expect(mediaFileName("", "png")).toBe("file.png");
  });
});
