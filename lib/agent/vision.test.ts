/**
 * AGENT_VISION (issue #22) on the real WordPress and the real provider path (`@ai-sdk/openai` against a scripted
 * Chat Completions server): with it on, the agent looks at a media library image and the model's next request
 * carries the picture (small, as a JPEG) in a user message, and a bulk alt-text batch carries each item's picture;
 * with it off, no tool looks and no request carries an image, and update_media asks the model to say what its alt
 * text is based on. The fetch refuses what is not an image, a file over the cap and private addresses.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { POST } from "@/app/chat/route";
import { useTestDatabase } from "@/lib/db/testing";
import { resetEnvForTests } from "@/lib/env";
import { newUser } from "@/test/accounts";
import { call } from "@/test/http";
import { startOpenAIScriptedServer, type OpenAIChatRequest, type ScriptedServer } from "@/test/openai-scripted-server";
import { pairAgentSite, parseUiStream, startAgentSite, streamText, type AgentTestSite } from "@/test/agent-site";
import { runAsAdmin } from "@/test/wordpress";
import { resetBreakersForTests } from "./breaker";
import { writeJobTexts } from "./job-writer";
import { setAgentModelForTests } from "./model";
import { fetchImageForModel } from "./vision";

useTestDatabase();

let wp: AgentTestSite;
let server: ScriptedServer;
let user: { cookie: string; id: string };
let siteId: string;
let imageId: number;
let imageUrl: string;

/** A picture put in the media library as an administrator would: a file in uploads and its attachment. */
async function libraryImage(name: string, bytes: Buffer): Promise<{ id: number; url: string }> {
  const uploads = path.join(wp.local.wpPath, "wp-content", "uploads");
  mkdirSync(uploads, { recursive: true });
  writeFileSync(path.join(uploads, name), bytes);
  return runAsAdmin<{ id: number; url: string }>(
    wp.local.wpPath,
    "$file = wp_upload_dir()['basedir'] . '/' . $args; $id = wp_insert_attachment(array('post_title' => 'Shop window', 'post_mime_type' => 'image/jpeg', 'post_status' => 'inherit'), $file); echo json_encode(array('id' => $id, 'url' => wp_get_attachment_url($id)));",
    name,
  );
}

/** Every image the model was sent in a request, as `image_url` parts of user messages. */
function imagesIn(request: OpenAIChatRequest): string[] {
  return request.messages.flatMap((message) =>
    message.role === "user" && Array.isArray(message.content)
      ? (message.content as Array<{ type: string; image_url?: { url: string } }>)
          .filter((part) => part.type === "image_url")
          .map((part) => part.image_url!.url)
      : [],
  );
}

const jpegSide = async (dataUrl: string) => {
  expect(dataUrl).toMatch(/^data:image\/jpeg;base64,/);
  const meta = await sharp(Buffer.from(dataUrl.split(",")[1]!, "base64")).metadata();
  return { format: meta.format, width: meta.width, height: meta.height };
};

async function chat(message: string | undefined, more: Record<string, unknown> = {}) {
  const res = await call(POST, {
    body: { siteId, message, ...more },
    cookie: user.cookie,
    path: "/chat",
    headers: { origin: "http://localhost:3000" },
  });
  expect(res.status).toBe(200);
  return parseUiStream(res.text);
}

beforeAll(async () => {
  wp = await startAgentSite();
  user = await newUser("vision");
  siteId = await pairAgentSite(wp, user.id);
  const photo = await sharp({ create: { width: 1600, height: 1000, channels: 3, background: "#3050c0" } })
    .jpeg()
    .toBuffer();
  ({ id: imageId, url: imageUrl } = await libraryImage("shop-window.jpg", photo));
}, 120_000);

beforeEach(() => {
  setAgentModelForTests(undefined);
  resetBreakersForTests();
});

afterAll(async () => {
  resetEnvForTests({ OPENAI_API_KEY: "", OPENAI_BASE_URL: undefined, AGENT_MODEL: undefined, AGENT_VISION: undefined });
  await server?.close();
  await wp?.local.stop();
});

async function scripted(vision: boolean, script: Parameters<typeof startOpenAIScriptedServer>[0]) {
  await server?.close();
  server = await startOpenAIScriptedServer(script, { apiKey: "sk-test-vision" });
  resetEnvForTests({
    OPENAI_API_KEY: "sk-test-vision",
    OPENAI_BASE_URL: server.baseURL,
    AGENT_MODEL: "scripted-model",
    AGENT_VISION: vision ? "true" : "false",
  });
}

describe("alt text the model can base on the image", () => {
  it("with AGENT_VISION on, the agent looks at the image and the model's next request carries it, small", async () => {
    await scripted(true, [
      { toolCalls: [{ name: "view_image", arguments: { id: imageId } }] },
      { text: "It shows a blue shop window." },
    ]);
    const chunks = await chat("What does the shop window image show?");
    expect(streamText(chunks)).toBe("It shows a blue shop window.");

    const [first, second] = server.requests.map((r) => r.body);
    expect(first!.tools!.map((t) => t.function.name)).toContain("view_image");
    expect(first!.tools!.find((t) => t.function.name === "update_media")!.function.description).toContain("view_image");
    expect(imagesIn(first!)).toEqual([]);
    const images = imagesIn(second!);
    expect(images).toHaveLength(1);
    expect(await jpegSide(images[0]!)).toEqual({ format: "jpeg", width: 768, height: 480 });
    // The tool result itself stays text (Chat Completions takes images only from users), labelled untrusted.
    const tool = second!.messages.find((m) => m.role === "tool")!;
    expect(typeof tool.content).toBe("string");
    expect(String(tool.content)).toContain("untrusted_notice");
    expect(String(tool.content)).not.toContain("base64");
  });

  it("with it off, no tool looks, no request carries an image, and update_media asks what the text is based on", async () => {
    await scripted(false, [
      { toolCalls: [{ name: "update_media", arguments: { id: imageId, alt: "A shop window" } }] },
      { text: "I set the alt text from the image's title, “Shop window”." },
    ]);
    const asked = await chat("Write alt text for the shop window image");
    // Visitors can see the image's alt text (its attachment page): the change waits for the owner's click.
    const approvals = asked.filter((c) => c.type === "tool-approval-request").map((c) => c.approvalId as string);
    expect(approvals).toHaveLength(1);
    const conversation = asked.find((c) => c.type === "data-conversation") as unknown as {
      data: { conversationId: string };
    };
    const chunks = await chat(undefined, {
      conversationId: conversation.data.conversationId,
      approvals: approvals.map((id) => ({ id, approved: true })),
    });
    expect(streamText(chunks)).toContain("from the image's title");
    const first = server.requests[0]!.body;
    expect(first.tools!.map((t) => t.function.name)).not.toContain("view_image");
    expect(first.tools!.find((t) => t.function.name === "update_media")!.function.description).toContain(
      "tell the owner what it is based on",
    );
    expect(server.requests.flatMap((r) => imagesIn(r.body))).toEqual([]);
  });

  it("a bulk alt-text batch carries each item's picture with AGENT_VISION on, and none with it off", async () => {
    const answer = { text: JSON.stringify({ items: [{ id: imageId, text: "A blue shop window" }] }) };
    for (const vision of [true, false]) {
      await scripted(vision, [answer]);
      const written = await writeJobTexts({
        field: "alt",
        instruction: "Describe each image",
        items: [{ id: imageId, title: "Shop window" }],
        client: wp.admin,
        siteUrl: wp.local.url,
      });
      expect(written.texts.get(imageId)).toBe("A blue shop window");
      const request = server.requests[0]!.body;
      const images = imagesIn(request);
      if (vision) {
        expect(images).toHaveLength(1);
        expect(await jpegSide(images[0]!)).toEqual({ format: "jpeg", width: 384, height: 240 });
        expect(request.messages[0]!.content).toContain("base the text on what each image shows");
      } else {
        expect(images).toEqual([]);
        expect(request.messages[0]!.content).toContain("Base the text on the item's facts given");
      }
    }
  });
});

describe("fetching an image for the model", () => {
  it("refuses an address that is not an image", async () => {
    await expect(fetchImageForModel(`${wp.local.url}/`)).rejects.toMatchObject({ code: "not_an_image" });
  });

  it("refuses a file over the cap", async () => {
    await expect(fetchImageForModel(imageUrl, { maxBytes: 1024 })).rejects.toMatchObject({
      code: "image_too_large",
    });
  });

  it("refuses private addresses and plain http", async () => {
    await expect(fetchImageForModel("https://127.0.0.1/a.jpg")).rejects.toMatchObject({ code: "forbidden_host" });
    await expect(fetchImageForModel(imageUrl.replace("https:", "http:"))).rejects.toMatchObject({
      code: "insecure_url",
    });
  });
});
