/**
 * A photo the owner attaches in the chat, on the real WordPress with the plugin, through `POST /sites/:id/uploads`,
 * `POST /chat` (scripted model) and the Changes routes: the upload reaches the site at once as an attachment
 * nothing uses (without its EXIF); the image block on the published page waits for the click; after Approve the
 * public page shows the image; Undo removes the block and deletes the attachment, but keeps an attachment that
 * something else on the site uses by then. Each turn's card shows that turn's own items, named as what they are.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as undoRoute } from "@/app/sites/[id]/changes/[changeSetId]/undo/route";
import { POST as uploadRoute } from "@/app/sites/[id]/uploads/route";
import { blockText, describeTarget } from "@/app/sites/[id]/chat/card-words";
import { getChangeSet } from "@/lib/changes/change-sets";
import { useTestDatabase } from "@/lib/db/testing";
import { SECRET, jpegWithMetadata } from "@/lib/media/testing";
import { pairAgentSite, startAgentSite, type AgentTestSite } from "@/test/agent-site";
import { answerEvery, approvalIds, changeParts, chatAs, outputs, type Turn } from "@/test/chat";
import { newUser } from "@/test/accounts";
import { call } from "@/test/http";
import { installMuPlugin } from "@/test/wordpress";
import { setAgentModelForTests } from "./model";
import { scriptedModel } from "./testing/scripted-model";

useTestDatabase();

const ORIGIN = { origin: "http://localhost:3000" };
let wp: AgentTestSite;
let user: { cookie: string; id: string };
let siteId: string;

beforeAll(async () => {
  wp = await startAgentSite();
  user = await newUser("media-chat");
  siteId = await pairAgentSite(wp, user.id);
}, 120_000);

afterAll(async () => {
  setAgentModelForTests(undefined);
  await wp?.local.stop();
});

async function upload(bytes: Uint8Array, name: string): Promise<string> {
  const form = new FormData();
  form.set("file", new File([new Uint8Array(bytes)], name));
  const request = new Request("http://x/", { method: "POST", body: form });
  const res = await call(uploadRoute, {
    method: "POST",
    rawBody: new Uint8Array(await request.arrayBuffer()),
    headers: { ...ORIGIN, "content-type": request.headers.get("content-type")! },
    cookie: user.cookie,
    params: { id: siteId },
  });
  expect(res.status).toBe(201);
  return res.json.upload.id as string;
}

const chat = chatAs(() => ({ siteId, cookie: user.cookie }));

type ChangeData = {
  changeSetId: string;
  status: string;
  items: Array<{
    kind: string;
    action: string;
    status: string;
    title: string;
    before: Record<string, unknown>;
    after: Record<string, unknown>;
    targetId: string;
  }>;
};
const changesOf = (turn: Turn) => changeParts(turn) as unknown as ChangeData[];
const lastChange = (turn: Turn) => changesOf(turn).at(-1)!;

async function publishedPage(title: string) {
  const { data } = await wp.admin.post<{ id: number; link: string }>("/wp/v2/pages", {
    title,
    content: "<!-- wp:paragraph --><p>Welcome to the shop.</p><!-- /wp:paragraph -->",
    status: "publish",
  });
  return data;
}

const publicHtml = async (link: string) => (await fetch(link, { headers: { "cache-control": "no-cache" } })).text();

async function addImageAndApprove(page: { id: number }, uploadId: string) {
  const model = scriptedModel([
    {
      toolCalls: [
        {
          name: "add_image",
          input: { id: page.id, file: `upload:${uploadId}`, alt: "The shop front" },
          id: `call_${uploadId}`,
        },
      ],
    },
    { text: "Added." },
  ]);
  setAgentModelForTests(model);
  const asked = await chat({ message: "Put this photo at the end of the page", uploads: [uploadId] });
  return { model, asked };
}

describe("an attached photo on a published page", () => {
  it("uploads at once, waits for the click to show it, and undo takes it all back", async () => {
    const page = await publishedPage("Our shop");
    const uploadId = await upload(await jpegWithMetadata({ width: 80, height: 60 }), "front.jpg");
    const { model, asked } = await addImageAndApprove(page, uploadId);

    expect(JSON.stringify(model.doStreamCalls[0]!.prompt)).toContain(
      `The owner attached image upload:${uploadId} (front.jpg, image/jpeg`,
    );
    expect(approvalIds(asked)).toHaveLength(1);
    const pending = lastChange(asked);
    expect(pending.items.map((i) => [i.kind, i.action, i.status])).toEqual([
      ["media", "create", "applied"],
      ["page", "update", "pending"],
    ]);
    expect(pending.items[0]!.after.preview).toBe(`/sites/${siteId}/uploads/${uploadId}`);
    const mediaId = Number(pending.items[0]!.targetId.slice("post:".length));

    // On the site already (not visible: nothing uses it), and without the photo's EXIF.
    const media = (await wp.admin.get<{ source_url: string; post: number | null }>(`/wp/v2/media/${mediaId}`)).data;
    const file = Buffer.from(await (await fetch(media.source_url)).arrayBuffer());
    expect((await sharp(file).metadata()).exif).toBeUndefined();
    expect(file.includes(Buffer.from(SECRET))).toBe(false);
    expect(await publicHtml(page.link)).not.toContain(`wp-image-${mediaId}`);

    const approved = await answerEvery(chat, asked);
    const done = lastChange(approved);
    expect(done.items.map((i) => [i.kind, i.status])).toEqual([
      ["media", "applied"],
      ["page", "applied"],
    ]);
    const html = await publicHtml(page.link);
    expect(html).toContain(`wp-image-${mediaId}`);
    expect(html).toContain(media.source_url);
    expect(html).toContain('alt="The shop front"');

    const undo = await call(undoRoute, {
      method: "POST",
      body: {},
      cookie: user.cookie,
      headers: ORIGIN,
      params: { id: siteId, changeSetId: done.changeSetId },
    });
    expect(undo.status).toBe(200);
    expect(undo.json.changeSet.status).toBe("undone");
    expect(await publicHtml(page.link)).not.toContain(`wp-image-${mediaId}`);
    const gone = await wp.admin.get(`/wp/v2/media/${mediaId}`).catch((error: { siteStatus?: number }) => error);
    expect((gone as { siteStatus?: number }).siteStatus).toBe(404);
  });

  it("keeps the attachment on undo when another page shows it by then", async () => {
    const page = await publishedPage("Gallery");
    const uploadId = await upload(await jpegWithMetadata({ width: 40, height: 30 }), "counter.jpg");
    const { asked } = await addImageAndApprove(page, uploadId);
    const mediaId = Number(lastChange(asked).items[0]!.targetId.slice("post:".length));
    const approved = await answerEvery(chat, asked);
    const changeSetId = lastChange(approved).changeSetId;

    // The owner uses the picture on another page, in WordPress.
    await wp.admin.post("/wp/v2/pages", {
      title: "Elsewhere",
      status: "publish",
      content: `<!-- wp:image {"id":${mediaId}} --><figure class="wp-block-image"><img src="x" class="wp-image-${mediaId}"/></figure><!-- /wp:image -->`,
    });
    const undo = await call(undoRoute, {
      method: "POST",
      body: {},
      cookie: user.cookie,
      headers: ORIGIN,
      params: { id: siteId, changeSetId },
    });
    expect(undo.status).toBe(200);
    expect(await publicHtml(page.link)).not.toContain(`wp-image-${mediaId}`);
    expect((await wp.admin.get<{ id: number }>(`/wp/v2/media/${mediaId}`)).data.id).toBe(mediaId);
  });

  it("fetches an image from an https address and writes it into a draft at once; refuses text and plain http", async () => {
    const { data: draft } = await wp.admin.post<{ id: number }>("/wp/v2/pages", {
      title: "Draft with a picture",
      status: "draft",
      content: "<!-- wp:paragraph --><p>Soon.</p><!-- /wp:paragraph -->",
    });
    const folder = path.join(wp.local.wpPath, "wp-content", "uploads", "remote");
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, "sign.jpg"), await jpegWithMetadata({ width: 30, height: 20 }));
    writeFileSync(path.join(folder, "notes.png"), "not a picture");
    const at = (name: string) => `${wp.local.url}/wp-content/uploads/remote/${name}`;
    setAgentModelForTests(
      scriptedModel([
        {
          toolCalls: [
            {
              name: "add_image",
              input: { id: draft.id, file: at("sign.jpg"), position: "start", alt: "The sign" },
              id: "call_sign",
            },
            { name: "add_image", input: { id: draft.id, file: at("notes.png"), alt: "Notes" }, id: "call_notes" },
            {
              name: "add_image",
              input: { id: draft.id, file: at("sign.jpg").replace("https:", "http:"), alt: "x" },
              id: "call_http",
            },
          ],
        },
        { text: "Done." },
      ]),
    );
    const { chunks } = await chat({ message: "Put the sign from that address at the top of the draft" });
    expect(chunks.some((c) => c.type === "tool-approval-request")).toBe(false);
    const outcome = (id: string) =>
      chunks.find((c) => c.toolCallId === id && c.type.startsWith("tool-output")) as unknown as {
        type: string;
        output?: { ok: boolean; code?: string };
      };
    expect(outcome("call_sign").output?.ok).toBe(true);
    expect(outcome("call_notes").output).toMatchObject({ ok: false, code: "unsupported_media_type" });
    // Plain http is not even a valid argument: refused before anything is fetched.
    expect(outcome("call_http").type).toBe("tool-output-error");

    const stored = await wp.admin.get<{ content: { raw: string } }>(`/wp/v2/pages/${draft.id}`, { context: "edit" });
    expect(stored.data.content.raw.startsWith("<!-- wp:image")).toBe(true);
    expect(stored.data.content.raw).toContain('alt="The sign"');
    const src = /src="([^"]+)"/.exec(stored.data.content.raw)![1]!;
    const file = Buffer.from(await (await fetch(src)).arrayBuffer());
    expect((await sharp(file).metadata()).exif).toBeUndefined();
  });

  it("takes the upload back when the owner denies the image's place", async () => {
    const page = await publishedPage("Denied");
    const uploadId = await upload(await jpegWithMetadata({ width: 20, height: 20 }), "maybe.jpg");
    const { asked } = await addImageAndApprove(page, uploadId);
    const mediaId = Number(lastChange(asked).items[0]!.targetId.slice("post:".length));
    expect((await wp.admin.get<{ id: number }>(`/wp/v2/media/${mediaId}`)).data.id).toBe(mediaId);

    setAgentModelForTests(scriptedModel([{ text: "Left as it was." }]));
    await answerEvery(chat, asked, false);
    const gone = await wp.admin.get(`/wp/v2/media/${mediaId}`).catch((error: { siteStatus?: number }) => error);
    expect((gone as { siteStatus?: number }).siteStatus).toBe(404);
    const set = await getChangeSet({ userId: user.id, siteId, changeSetId: lastChange(asked).changeSetId });
    expect(set.items.map((i) => [i.kind, i.status])).toEqual([
      ["media", "undone"],
      ["page", "denied"],
    ]);
  });

  it("says the file is too large for the site before sending it, when the site's limit is lower", async () => {
    installMuPlugin(
      wp.local.wpPath,
      "sitewright-test-media-limit.php",
      "<?php add_filter( 'sitewright_media_max_bytes', static fn() => 100 );",
    );
    try {
      const page = await publishedPage("Small files only");
      const uploadId = await upload(await jpegWithMetadata({ width: 64, height: 64 }), "big.jpg");
      const { asked } = await addImageAndApprove(page, uploadId);
      const [output] = outputs(asked);
      expect(output).toMatchObject({ ok: false, code: "file_too_large" });
      expect(output!.error).toContain("up to 0 KiB");
      expect(changeParts(asked)).toEqual([]);
    } finally {
      rmSync(path.join(wp.local.wpPath, "wp-content", "mu-plugins", "sitewright-test-media-limit.php"));
    }
  });
});

/**
 * Issue 35, item 6: each turn's card shows that turn's own items, with the right words. Some model servers number
 * tool calls per response ("call_0" in every turn), so every call here has that same id.
 */
describe("each turn's own items on its card, with the right labels", () => {
  const REUSED = "call_0";
  const turn = async (toolCall: { name: string; input: unknown }, body: Record<string, unknown>) => {
    setAgentModelForTests(scriptedModel([{ toolCalls: [{ ...toolCall, id: REUSED }] }, { text: "Done." }]));
    const asked = await chat(body);
    const approved = await answerEvery(chat, asked);
    return { asked, approved, conversationId: asked.conversationId };
  };
  const kinds = (change: ChangeData) => change.items.map((i) => [i.kind, i.action, i.status]);

  it("an upload in one turn and a footer change in the next: the second card shows only the footer", async () => {
    const page = await publishedPage("Our bakery");
    const uploadId = await upload(await jpegWithMetadata({ width: 40, height: 30 }), "front.jpg");
    const first = await turn(
      { name: "add_image", input: { id: page.id, file: `upload:${uploadId}`, alt: "The shop front" } },
      { message: "Put this photo at the end of the page", uploads: [uploadId] },
    );
    expect(kinds(changesOf(first.approved).at(-1)!)).toEqual([
      ["media", "create", "applied"],
      ["page", "update", "applied"],
    ]);
    const media = changesOf(first.approved).at(-1)!.items[0]!;
    const mediaId = Number(media.targetId.slice("post:".length));

    const markup = "<!-- wp:paragraph -->\n<p>Open every day from 7am</p>\n<!-- /wp:paragraph -->";
    const second = await turn(
      { name: "update_template_part", input: { slug: "footer", position: "1", action: "before", markup } },
      { conversationId: first.conversationId, message: "Add our hours to the footer" },
    );
    // The card while it waits, and after Approve: the footer alone (the first turn's upload is not this call's).
    expect(changesOf(second.asked).map(kinds)).toEqual([[["template_part", "update", "pending"]]]);
    expect(kinds(changesOf(second.approved).at(-1)!)).toEqual([["template_part", "update", "applied"]]);
    expect((await wp.local.fetch("/")).body).toContain("Open every day from 7am");
    // The first turn's upload is still on the site and still applied in its own change set.
    const firstSet = await getChangeSet({
      userId: user.id,
      siteId,
      changeSetId: changesOf(first.approved).at(-1)!.changeSetId,
    });
    expect(firstSet.items.map((i) => [i.kind, i.status])).toEqual([
      ["media", "applied"],
      ["page", "applied"],
    ]);

    // A media item is named as media, by its title (the file's name); an image block by its alt text.
    const third = await turn(
      { name: "update_media", input: { id: mediaId, alt: "The shop front at dawn" } },
      { conversationId: first.conversationId, message: "Describe the shop photo better" },
    );
    const card = changesOf(third.asked).at(-1)!;
    expect(kinds(card)).toEqual([
      ["media", "update", "pending"],
      ["page", "update", "pending"],
    ]);
    expect(describeTarget("update_media", { id: mediaId }, card.items)).toEqual({
      target: `media item ${mediaId}`,
      name: "front",
    });
    expect(describeTarget("add_image", { id: page.id }, changesOf(first.asked).at(-1)!.items)).toEqual({
      target: `page ${page.id}`,
      name: "Our bakery",
    });
    const imageBlock = (content: unknown) =>
      blockText(/<!-- wp:image[\s\S]*?<!-- \/wp:image -->/.exec(String(content))![0], "core/image");
    const shown = card.items[1]!;
    expect(imageBlock(shown.before.content)).toBe("[image: “The shop front”]");
    expect(imageBlock(shown.after.content)).toBe("[image: “The shop front at dawn”]");
    // What the model is told of the approved write names a media item, not a page.
    expect(outputs(third.approved)[0]).toMatchObject({ ok: true, target: { type: "media", id: mediaId } });
  });
});
