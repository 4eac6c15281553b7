/**
 * `GET /sites/:id/media/:attachmentId/thumbnail` through the real route handler against the real WordPress with our
 * plugin: the owner gets the site's 150 px thumbnail as an image from our origin (private cache, nosniff, sandboxed);
 * another user, a missing attachment and a picture outside the site's own address get 404; a file whose bytes are
 * not an image is 415 whatever the site calls it; a picture over the cap is 413; nobody logged in is 401.
 */
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/lib/db/testing";
import { fetchSiteImage, isSiteOwnFile, THUMBNAIL_MAX_BYTES } from "@/lib/media/site-images";
import { newUser } from "@/test/accounts";
import { type AgentTestSite, pairAgentSite, startAgentSite } from "@/test/agent-site";
import { call } from "@/test/http";
import { addLibraryFile } from "@/test/media-library";
import { GET } from "./route";

useTestDatabase();

let wp: AgentTestSite;
let owner: { cookie: string; id: string };
let siteId: string;

const libraryFile = (name: string, bytes: Buffer, mime: string, sizes = true) =>
  addLibraryFile(wp.local.wpPath, { name, bytes, mime, sizes });

const thumbnail = (attachmentId: number | string, cookie?: string) =>
  call(GET, {
    cookie,
    params: { id: siteId, attachmentId: String(attachmentId) },
    path: `/sites/${siteId}/media/${attachmentId}/thumbnail`,
  });

let photoId: number;

beforeAll(async () => {
  wp = await startAgentSite();
  owner = await newUser("thumbs");
  siteId = await pairAgentSite(wp, owner.id);
  const photo = await sharp({ create: { width: 1200, height: 800, channels: 3, background: "#c03050" } })
    .jpeg()
    .toBuffer();
  photoId = await libraryFile(`thumb-photo-${Date.now()}.jpg`, photo, "image/jpeg");
}, 120_000);

afterAll(async () => {
  await wp?.local.stop();
});

describe("an attachment's thumbnail, through our origin", () => {
  it("answers the owner the site's thumbnail as an image, privately cached and never run", async () => {
    const res = await call(GET, {
      cookie: owner.cookie,
      params: { id: siteId, attachmentId: String(photoId) },
      path: `/sites/${siteId}/media/${photoId}/thumbnail`,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/jpeg");
    expect(res.headers.get("cache-control")).toBe("private, max-age=300");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
    // `call` reads the body as text; read it again as bytes to look at the picture itself.
    const again = await GET(
      new Request(`http://localhost:3000/sites/${siteId}/media/${photoId}/thumbnail`, {
        headers: { cookie: owner.cookie },
      }),
      { params: Promise.resolve({ id: siteId, attachmentId: String(photoId) }) },
    );
    const meta = await sharp(Buffer.from(await again.arrayBuffer())).metadata();
    expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({
      format: "jpeg",
      width: 150,
      height: 150,
    });
  });

  it("is 404 to another user, for an attachment the site does not have, and 401 to nobody", async () => {
    const other = await newUser("thumbs-other");
    const theirs = await thumbnail(photoId, other.cookie);
    expect(theirs.status).toBe(404);
    expect(theirs.json.error.code).toBe("not_found");
    const missing = await thumbnail(987654321, owner.cookie);
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe("not_found");
    expect((await thumbnail(photoId)).status).toBe(401);
    expect((await thumbnail("12abc", owner.cookie)).status).toBe(404);
  });

  it("refuses a file whose bytes are not an image, whatever the site calls it (415)", async () => {
    const fake = await libraryFile(
      `not-a-photo-${Date.now()}.jpg`,
      Buffer.from("<html><script>alert(1)</script></html>"),
      "image/jpeg",
      false,
    );
    const res = await thumbnail(fake, owner.cookie);
    expect(res.status).toBe(415);
    expect(res.json.error.code).toBe("unsupported_media_type");
    expect(res.headers.get("content-type")).toContain("application/json");
  });

  it("refuses a picture over the cap (413) rather than passing it on", async () => {
    // Noise does not compress: a PNG of well over THUMBNAIL_MAX_BYTES, with no smaller copies to choose instead.
    const noise = await sharp(
      Buffer.from(Array.from({ length: 600 * 600 * 3 }, () => Math.floor(Math.random() * 256))),
      {
        raw: { width: 600, height: 600, channels: 3 },
      },
    )
      .png()
      .toBuffer();
    expect(noise.length).toBeGreaterThan(THUMBNAIL_MAX_BYTES);
    const big = await libraryFile(`noise-${Date.now()}.png`, noise, "image/png", false);
    const res = await thumbnail(big, owner.cookie);
    expect(res.status).toBe(413);
    expect(res.json.error).toMatchObject({ code: "payload_too_large", details: { maxBytes: THUMBNAIL_MAX_BYTES } });
  });

  it("fetches only the site's own files: another host, a userinfo trick or another port is 404 before any fetch", async () => {
    const site = wp.local.url;
    expect(isSiteOwnFile(`${site}/wp-content/uploads/a.jpg`, site)).toBe(true);
    const port = new URL(site).port;
    for (const url of [
      "https://attacker.example/a.jpg",
      `https://user@${new URL(site).host}/a.jpg`,
      `https://localhost:${Number(port) + 1}/a.jpg`,
      "http://169.254.169.254/latest/meta-data",
    ]) {
      expect(isSiteOwnFile(url, site)).toBe(false);
      await expect(fetchSiteImage(url, { siteUrl: site, maxBytes: 1024 })).rejects.toMatchObject({
        code: "not_found",
      });
    }
  });
});
