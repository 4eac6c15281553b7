/**
 * `POST /sites/:id/uploads` through the real route handlers, on both stores: the owner's picture comes back as an
 * upload without its metadata and is served only to them; a text file named like a PNG is 415, a file over the
 * limit 413, another user's site 404, and a cross-site post 403.
 */
import { randomUUID } from "node:crypto";
import fc from "fast-check";
import sharp from "sharp";
import { afterAll, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { deleteExpiredUploads, findUpload, markUploadUsed } from "@/lib/db/queries";
import { uploads } from "@/lib/db/schema";
import { STORES, useStore } from "@/lib/db/testing";
import { resetEnvForTests } from "@/lib/env";
import { SECRET, jpegWithMetadata } from "@/lib/media/testing";
import { MAX_UNUSED_UPLOADS } from "@/lib/media/uploads";
import { insertSiteRow } from "@/test/agent-site";
import { newUser } from "@/test/accounts";
import { call } from "@/test/http";
import { GET as serve } from "./[uploadId]/route";
import { POST as upload } from "./route";

const ORIGIN = { origin: "http://localhost:3000" };

function form(bytes: Uint8Array, name: string, type = "application/octet-stream") {
  const data = new FormData();
  data.set("file", new File([new Uint8Array(bytes)], name, { type }));
  const request = new Request("http://x/", { method: "POST", body: data });
  return { headers: { "content-type": request.headers.get("content-type")! }, body: request.arrayBuffer() };
}

async function post(siteId: string, cookie: string, bytes: Uint8Array, name: string, headers = ORIGIN) {
  const body = form(bytes, name);
  return call(upload, {
    method: "POST",
    rawBody: new Uint8Array(await body.body),
    headers: { ...headers, ...body.headers },
    cookie,
    params: { id: siteId },
    path: `/sites/${siteId}/uploads`,
  });
}

async function ownerWithSite(prefix: string) {
  const user = await newUser(prefix);
  const siteId = await insertSiteRow({
    userId: user.id,
    url: "https://shop.example.com",
    token: "t",
    secret: "s",
    info: {},
  });
  return { ...user, siteId };
}

afterAll(() => resetEnvForTests({ UPLOAD_MAX_BYTES: undefined }));

describe.each(STORES)("uploads (%s)", (store) => {
  useStore(store);

  it("keeps the owner's photo without its EXIF, and serves it to them only", async () => {
    const owner = await ownerWithSite("uploader");
    const photo = await jpegWithMetadata({ width: 64, height: 48 });
    const res = await post(owner.siteId, owner.cookie, photo, "holiday.png");
    expect(res.status).toBe(201);
    expect(res.json.upload).toMatchObject({ name: "holiday.jpg", type: "image/jpeg", width: 64, height: 48 });
    expect(res.json.upload.id).toMatch(/^[0-9a-f-]{36}$/);

    const got = await serve(
      new Request(`http://localhost:3000/sites/${owner.siteId}/uploads/${res.json.upload.id}`, {
        headers: { cookie: owner.cookie },
      }),
      { params: Promise.resolve({ id: owner.siteId, uploadId: res.json.upload.id }) },
    );
    expect(got.status).toBe(200);
    expect(got.headers.get("content-type")).toBe("image/jpeg");
    expect(got.headers.get("x-content-type-options")).toBe("nosniff");
    const bytes = Buffer.from(await got.arrayBuffer());
    expect(bytes.length).toBe(res.json.upload.size);
    expect(bytes.includes(Buffer.from(SECRET))).toBe(false);
    const meta = await sharp(bytes).metadata();
    expect(meta).toMatchObject({ width: 64, height: 48 });
    expect(meta.exif).toBeUndefined();

    const stranger = await newUser("stranger");
    const peek = await call(serve, {
      cookie: stranger.cookie,
      params: { id: owner.siteId, uploadId: res.json.upload.id },
    });
    expect(peek.status).toBe(404);
  });

  it("answers 415 for a text file named like a PNG", async () => {
    const owner = await ownerWithSite("texter");
    const res = await post(owner.siteId, owner.cookie, Buffer.from("not a picture at all"), "photo.png");
    expect(res.status).toBe(415);
    expect(res.json.error.code).toBe("unsupported_media_type");
  });

  it("answers 413 over the limit, with the limit in the details", async () => {
    resetEnvForTests({ UPLOAD_MAX_BYTES: "2048" });
    try {
      const owner = await ownerWithSite("bigfile");
      const big = await sharp({ create: { width: 200, height: 200, channels: 3, background: "#abc" } })
        .png({ compressionLevel: 0 })
        .toBuffer();
      const res = await post(owner.siteId, owner.cookie, big, "big.png");
      expect(res.status).toBe(413);
      expect(res.json.error).toMatchObject({ code: "payload_too_large", details: { maxBytes: 2048 } });
    } finally {
      resetEnvForTests({ UPLOAD_MAX_BYTES: undefined });
    }
  });

  it("answers 404 for another user's site, and 403 for a cross-site post", async () => {
    const owner = await ownerWithSite("siteowner");
    const other = await newUser("other");
    const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: "#000" } })
      .png()
      .toBuffer();
    const res = await post(owner.siteId, other.cookie, png, "a.png");
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe("not_found");
    const cross = await post(owner.siteId, owner.cookie, png, "a.png", { origin: "https://evil.example" });
    expect(cross.status).toBe(403);
  });

  it("keeps a used upload longer, and the sweep deletes only expired ones", async () => {
    const owner = await ownerWithSite("keeper");
    const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: "#000" } })
      .png()
      .toBuffer();
    const kept = (await post(owner.siteId, owner.cookie, png, "kept.png")).json.upload.id as string;
    const dropped = (await post(owner.siteId, owner.cookie, png, "dropped.png")).json.upload.id as string;
    const inTwoDays = new Date(Date.now() + 2 * 24 * 60 * 60 * 1000);
    await markUploadUsed({ id: kept, now: new Date(), keepUntil: new Date(Date.now() + 30 * 24 * 60 * 60 * 1000) });
    expect(await deleteExpiredUploads({ now: inTwoDays })).toBeGreaterThanOrEqual(1);
    const find = (id: string) => findUpload({ id, userId: owner.id, siteId: owner.siteId, now: new Date() });
    expect((await find(kept))?.bytes.equals(png)).toBe(true);
    expect(await find(dropped)).toBeUndefined();
  });

  it("answers 429 once the user holds too many unused uploads", async () => {
    const owner = await ownerWithSite("hoarder");
    const png = await sharp({ create: { width: 2, height: 2, channels: 3, background: "#000" } })
      .png()
      .toBuffer();
    const db = await getDb();
    const at = new Date();
    await db.insert(uploads).values(
      Array.from({ length: MAX_UNUSED_UPLOADS }, () => ({
        id: randomUUID(),
        userId: owner.id,
        siteId: owner.siteId,
        name: "a.png",
        mime: "image/png",
        size: png.length,
        width: 2,
        height: 2,
        bytes: png,
        sourceUrl: null,
        createdAt: at,
        usedAt: null,
        expiresAt: new Date(at.getTime() + 60_000),
      })),
    );
    const res = await post(owner.siteId, owner.cookie, png, "one-more.png");
    expect(res.status).toBe(429);
    expect(res.json.error.code).toBe("rate_limited");
    expect(res.headers.get("retry-after")).toBe("3600");
  });

  it("answers random bytes under any name with 201 or 415 (400 for a part without a file name), never a 5xx", async () => {
    const owner = await ownerWithSite("fuzzer");
    const magic = [
      [],
      [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
      [0xff, 0xd8, 0xff],
      [0x25, 0x50, 0x44, 0x46, 0x2d],
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...magic),
        fc.uint8Array({ minLength: 1, maxLength: 400 }),
        fc.string({ maxLength: 60 }),
        async (prefix, rest, name) => {
          const res = await post(owner.siteId, owner.cookie, Buffer.concat([Buffer.from(prefix), rest]), name);
          expect(name === "" ? [201, 400, 415] : [201, 415]).toContain(res.status);
        },
      ),
      { numRuns: 25 },
    );
  });
});
