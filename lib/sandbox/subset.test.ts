/**
 * Copying a subset of a real live WordPress (our plugin, over https on localhost) into a real sandbox, and its
 * media loading through the service's media proxy.
 */
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertUser } from "@/lib/db/queries";
import { useTestDatabase } from "@/lib/db/testing";
import { AppError } from "@/lib/errors";
import { createSiteClient } from "@/lib/sites/client";
import { startLocalSite, type LocalSite } from "@/scripts/site-local";
import { call } from "@/test/http";
import { GET as getMedia } from "@/app/sandbox/media/[sandboxId]/[...path]/route";
import { setSandboxManagerForTests } from "./index";
import { originMediaUrl } from "./media-proxy";
import type { SandboxView } from "./sandboxes";
import { rewriteMediaUrls } from "./subset";
import { createTestSandboxes, type TestSandboxes } from "./testing";

const execFileAsync = promisify(execFile);
useTestDatabase();

/** A 1×1 PNG. */
const PIXEL = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);
const SITE_ID = "site-local-1";

/** Adds a media file, a page showing it and a text file in uploads, on the live site, with WordPress's own API. */
async function seedLiveSite(site: LocalSite) {
  const script = join(tmpdir(), `seed-${randomUUID()}.php`);
  writeFileSync(
    script,
    `<?php
require $argv[1] . '/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/image.php';
$upload = wp_upload_bits('pixel.png', null, base64_decode($argv[2]));
$attachment = wp_insert_attachment(array('post_mime_type' => 'image/png', 'post_title' => 'Pixel', 'post_status' => 'inherit'), $upload['file']);
wp_update_attachment_metadata($attachment, wp_generate_attachment_metadata($attachment, $upload['file']));
$url = wp_get_attachment_url($attachment);
$page = wp_insert_post(array(
  'post_type' => 'page', 'post_status' => 'publish', 'post_title' => 'About us', 'post_name' => 'about-us',
  'post_content' => '<!-- wp:paragraph --><p>We make things.</p><!-- /wp:paragraph -->' .
    '<!-- wp:image {"id":' . $attachment . '} --><figure class="wp-block-image"><img src="' . esc_url($url) . '" alt="" class="wp-image-' . $attachment . '"/></figure><!-- /wp:image -->',
));
$other = wp_insert_post(array('post_type' => 'page', 'post_status' => 'publish', 'post_title' => 'Not copied', 'post_content' => 'secret plans'));
$text = wp_upload_bits('notes.txt', null, 'not media');
echo json_encode(array('page' => $page, 'other' => $other, 'attachment' => $attachment, 'url' => $url, 'textUrl' => $text['url'])), "\\n";
`,
  );
  const { stdout } = await execFileAsync("php", [script, site.wpPath, PIXEL.toString("base64")]);
  return JSON.parse(stdout.trim().split("\n").pop()!) as {
    page: number;
    other: number;
    attachment: number;
    url: string;
    textUrl: string;
  };
}

describe("a sandbox with a subset of a live site", () => {
  let site: LocalSite;
  let t: TestSandboxes;
  let seeded: Awaited<ReturnType<typeof seedLiveSite>>;
  let userId: string;
  let sandbox: SandboxView;

  beforeAll(async () => {
    site = await startLocalSite({ title: "Live Bakery" });
    seeded = await seedLiveSite(site);
    const credentials = await site.cli<{ token: string; secret: string }>(
      "create-credentials",
      "--scopes=site:read,content:read",
    );
    const liveClient = createSiteClient({
      baseUrl: site.url,
      restUrl: site.restUrl,
      token: credentials.token,
      secret: credentials.secret,
    });
    t = createTestSandboxes(
      { poolSize: 0 },
      {
        siteSource: async ({ siteId }) => {
          if (siteId !== SITE_ID) throw new AppError("not_found", "There is no such site in your account.");
          return { client: liveClient, site: { id: SITE_ID, url: site.url } };
        },
      },
    );
    await setSandboxManagerForTests(t.manager);
    userId = `user-${randomUUID()}`;
    await insertUser({
      id: userId,
      email: `${userId}@example.com`,
      name: null,
      passwordHash: "unused",
      createdAt: new Date(),
    });
    sandbox = await t.manager.createSandbox({ userId, siteId: SITE_ID, postIds: [seeded.page] });
  });
  afterAll(async () => {
    await setSandboxManagerForTests(undefined);
    await t?.cleanup();
    await site?.stop();
  });

  it("copies the chosen page into the sandbox, and nothing else", async () => {
    const client = await t.clientFor(sandbox.id);
    const item = sandbox.manifest!.items.find((entry) => entry.kind === "page" && entry.sourceId === seeded.page)!;
    expect(item.title).toBe("About us");
    const copied = await client.get<{ title: { rendered: string }; content: { rendered: string }; slug: string }>(
      `/wp/v2/pages/${item.sandboxId}`,
    );
    expect(copied.data.title.rendered).toBe("About us");
    expect(copied.data.slug).toBe("about-us");
    expect(copied.data.content.rendered).toContain("We make things.");

    const pages = await client.get<Array<{ title: { rendered: string } }>>("/wp/v2/pages", { per_page: 100 });
    expect(pages.data.map((page) => page.title.rendered)).not.toContain("Not copied");
    const users = await fetch(`${await t.directUrl(sandbox.id)}/wp-json/wp/v2/users`);
    expect(JSON.stringify(await users.json())).not.toMatch(/admin@example\.com|"admin"/);
  });

  it("records a manifest: the source, ids on both sides, checksums, the image tag", async () => {
    const view = await t.manager.getSandbox({ userId, id: sandbox.id });
    const manifest = view.manifest!;
    expect(manifest.sourceSiteId).toBe(SITE_ID);
    expect(manifest.sourceUrl).toBe(site.url);
    expect(manifest.imageTag).toBe(await t.manager.image());
    const kinds = manifest.items.map((entry) => entry.kind);
    expect(kinds).toEqual(expect.arrayContaining(["page", "attachment", "options"]));
    for (const entry of manifest.items) expect(entry.checksum).toMatch(/^[0-9a-f]{64}$/);
    const media = manifest.items.find((entry) => entry.kind === "attachment")!;
    expect(media.sourceId).toBe(seeded.attachment);
    expect(media.sandboxId).not.toBeNull();
  });

  it("points the page's media at the service's media proxy, which serves the origin's file", async () => {
    const html = await (await fetch(`${await t.directUrl(sandbox.id)}/about-us/`)).text();
    const prefix = `http://localhost:3000/sandbox/media/${sandbox.id}/`;
    const src = new RegExp(`src="(${prefix.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}[^"]+)"`).exec(html)?.[1];
    expect(src).toBeDefined();
    expect(html).not.toContain(seeded.url);

    const path = src!.slice(prefix.length);
    const first = await call(getMedia as never, { params: { sandboxId: sandbox.id, path } });
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("image/png");
    expect(first.headers.get("x-sitewright-cache")).toBe("miss");
    const second = await getMedia(new Request(src!), {
      params: Promise.resolve({ sandboxId: sandbox.id, path: path.split("/") }),
    } as never);
    expect(second.status).toBe(200);
    expect(second.headers.get("x-sitewright-cache")).toBe("hit");
    expect(Buffer.from(await second.arrayBuffer()).equals(PIXEL)).toBe(true);
  });

  it("refuses media paths outside the origin's uploads, and files that are not media", async () => {
    for (const path of [
      "../../wp-config.php",
      "..%2f..%2fwp-config.php",
      "2026/../../../wp-login.php",
      ".htaccess",
      "a//b.png",
    ]) {
      const res = await call(getMedia as never, { params: { sandboxId: sandbox.id, path } });
      expect(res.status, path).toBe(404);
    }
    const textPath = seeded.textUrl.split("/wp-content/uploads/")[1]!;
    const text = await call(getMedia as never, { params: { sandboxId: sandbox.id, path: textPath } });
    expect(text.status).toBe(415);
    expect(text.json.error.code).toBe("unsupported_media_type");
    const unknown = await call(getMedia as never, { params: { sandboxId: randomUUID(), path: "2026/01/a.png" } });
    expect(unknown.status).toBe(404);
  });

  it("answers not_found for a site that is not the user's, before using any sandbox", async () => {
    const error = await t.manager.createSandbox({ userId, siteId: "someone-elses-site" }).catch((e: unknown) => e);
    expect((error as AppError).code).toBe("not_found");
  });
});

describe("media URL handling", () => {
  it("builds origin URLs only below the uploads folder", () => {
    const base = "https://shop.example/wp-content/uploads/";
    expect(originMediaUrl(base, ["2024", "05", "cake photo.jpg"])).toBe(
      "https://shop.example/wp-content/uploads/2024/05/cake%20photo.jpg",
    );
    for (const segments of [
      [],
      [".."],
      ["2024", ".."],
      ["a/b"],
      ["a\\b"],
      [".env"],
      ["%2e%2e"],
      ["x?y"],
      ["x#y"],
      [""],
    ]) {
      expect(() => originMediaUrl(base, segments), JSON.stringify(segments)).toThrow(AppError);
    }
  });

  it("rewrites the origin's uploads URLs everywhere in a snapshot, escaped or not", () => {
    const from = "https://shop.example/wp-content/uploads/";
    const to = "https://app.example/sandbox/media/abc/";
    const snapshot = {
      posts: [
        {
          content: `<img src="${from}a.jpg"> {"url":"${from.replaceAll("/", "\\/")}b.jpg"}`,
          meta: { x: [`${from}c.jpg`] },
        },
      ],
      source: { homeUrl: "https://shop.example" },
    };
    const out = rewriteMediaUrls(snapshot, from, to);
    expect(out.posts[0]!.content).toBe(`<img src="${to}a.jpg"> {"url":"${to.replaceAll("/", "\\/")}b.jpg"}`);
    expect(out.posts[0]!.meta.x[0]).toBe(`${to}c.jpg`);
    expect(out.source.homeUrl).toBe("https://shop.example");
  });
});
