/**
 * The chat page's transport against the real `POST /chat` route served over HTTP: refusals the user can act on
 * come back as errors in words, and an unavailable assistant (503, or no server at all) turns into a labelled
 * offline reply.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { UIMessageChunk } from "ai";
import type { ChatMessage } from "@/lib/agent/chat-message";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST } from "@/app/chat/route";
import { setAgentModelForTests } from "@/lib/agent/model";
import { insertSiteRow } from "@/test/agent-site";
import { listMessages } from "@/lib/db/queries";
import { useTestDatabase } from "@/lib/db/testing";
import { newUser } from "@/test/accounts";
import { ChatRequestError, chatRequestBody, createChatTransport } from "./transport";

useTestDatabase();

let server: Server;
let base: string;
let cookie: string;
let userId: string;

beforeAll(async () => {
  const user = await newUser("transport");
  cookie = user.cookie;
  userId = user.id;
  // The route handler behind a plain Node server, with the browser's cookie and origin added.
  server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const response = await POST(
      new Request(`http://localhost:3000${req.url}`, {
        method: req.method,
        headers: { "content-type": "application/json", cookie, origin: "http://localhost:3000" },
        body: Buffer.concat(chunks),
      }),
    );
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  setAgentModelForTests(undefined);
  await new Promise((resolve) => server.close(resolve));
});

const userMessage = (text: string): ChatMessage => ({ id: "u1", role: "user", parts: [{ type: "text", text }] });

async function collect(stream: ReadableStream<UIMessageChunk>) {
  const chunks: UIMessageChunk[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<UIMessageChunk>) chunks.push(chunk);
  return chunks;
}

function send(
  api: string,
  text: string,
  onUnavailable: (reason: string) => void = () => {},
  options: { siteId?: string; onStreamError?: (message: string) => void } = {},
) {
  const transport = createChatTransport({
    api,
    siteId: options.siteId ?? "some-site",
    conversationId: () => undefined,
    onUnavailable,
    onStreamError: options.onStreamError,
  });
  return transport.sendMessages({
    trigger: "submit-message",
    chatId: "c",
    messageId: undefined,
    messages: [userMessage(text)],
    abortSignal: undefined,
  });
}

describe("the chat page's transport", () => {
  it("sends only the new message, or the answers to approval requests", () => {
    expect(chatRequestBody("s", "c", [userMessage("hi")])).toEqual({ siteId: "s", conversationId: "c", message: "hi" });
    const assistant: ChatMessage = {
      id: "a1",
      role: "assistant",
      parts: [
        {
          type: "tool-trash_page",
          toolCallId: "t1",
          state: "approval-responded",
          input: { id: 1 },
          approval: { id: "ap1", approved: true },
        },
        {
          type: "tool-publish_page",
          toolCallId: "t2",
          state: "approval-responded",
          input: { id: 2 },
          approval: { id: "ap2", approved: false, reason: "no" },
        },
      ],
    };
    expect(chatRequestBody("s", "c", [userMessage("x"), assistant])).toEqual({
      siteId: "s",
      conversationId: "c",
      approvals: [
        { id: "ap1", approved: true },
        { id: "ap2", approved: false, reason: "no" },
      ],
    });
  });

  it("sends the ids of the files attached to the message", () => {
    const attachment = { id: "3f1c7c2e-0000-4000-8000-000000000001", name: "front.jpg", type: "image/jpeg", size: 900 };
    const message: ChatMessage = {
      id: "m",
      role: "user",
      parts: [
        { type: "text", text: "Add this" },
        { type: "data-attachment", id: attachment.id, data: attachment },
      ],
    };
    expect(chatRequestBody("s", "c", [message])).toEqual({
      siteId: "s",
      conversationId: "c",
      message: "Add this",
      uploads: [attachment.id],
    });
  });

  it("falls back to a labelled offline reply when the assistant answers 503", async () => {
    setAgentModelForTests(null);
    const reasons: string[] = [];
    const chunks = await collect(await send(`${base}/chat`, "Rename the home page", (reason) => reasons.push(reason)));
    expect(reasons).toEqual(["The assistant is not configured on this server."]);
    expect(chunks[0]).toEqual({ type: "start", messageMetadata: { offline: true } });
    const text = chunks.flatMap((c) => (c.type === "text-delta" ? [c.delta] : [])).join("");
    expect(text).toMatch(
      /^Offline reply — the assistant is unavailable \(The assistant is not configured on this server\.\)\. Nothing was sent to your site\./,
    );
  });

  it("falls back to an offline reply when the server cannot be reached at all", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const reasons: string[] = [];
    const chunks = await collect(
      await send(`http://127.0.0.1:${port}/chat`, "hello", (reason) => reasons.push(reason)),
    );
    expect(reasons).toEqual(["Sitewright could not be reached. Check your connection."]);
    expect(chunks.some((c) => c.type === "data-offline")).toBe(true);
  });

  it("turns a refusal the user can act on into an error in the server's words", async () => {
    setAgentModelForTests(undefined);
    const { scriptedModel } = await import("@/lib/agent/testing/scripted-model");
    setAgentModelForTests(scriptedModel([{ text: "never" }]));
    await expect(send(`${base}/chat`, "x".repeat(9000))).rejects.toThrow(
      new ChatRequestError(
        "payload_too_large",
        "Messages are limited to 8 KiB of text. Shorten it or split it in parts.",
        413,
      ),
    );
    await expect(send(`${base}/chat`, "hi")).rejects.toMatchObject({
      code: "not_found",
      status: 404,
      message: "There is no such site in your account.",
    });
  });

  it("when the model endpoint fails mid-turn, shows the server's sentence and the stored closing words", async () => {
    const { failingModel } = await import("@/lib/agent/testing/scripted-model");
    const { APICallError } = await import("ai");
    setAgentModelForTests(
      failingModel(new APICallError({ message: "down", url: "http://model", requestBodyValues: {}, statusCode: 500 })),
    );
    const siteId = await insertSiteRow({
      userId,
      url: "https://shop.example",
      token: "t",
      secret: "s",
      info: { name: "Shop" },
    });
    const errors: string[] = [];
    const chunks = await collect(
      await send(`${base}/chat`, "Rename the home page", undefined, {
        siteId,
        onStreamError: (message) => errors.push(message),
      }),
    );
    expect(errors).toEqual(["The AI model provider answered with an error (HTTP 500). Try again in a moment."]);
    // No error chunk reaches useChat, so it keeps reading: the live reply is the stored one, word for word.
    expect(chunks.some((c) => c.type === "error")).toBe(false);
    const live = chunks.flatMap((c) => (c.type === "text-delta" ? [c.delta] : [])).join("");
    expect(live).toContain("Nothing was changed on the site.");
    expect(live).not.toMatch(/changed partly/);
    const conversationId = chunks.flatMap((c) =>
      c.type === "data-conversation" ? [(c.data as { conversationId: string }).conversationId] : [],
    )[0]!;
    const stored = await listMessages({ conversationId });
    const storedText = (stored.at(-1)!.parts as Array<{ type: string; text?: string }>)
      .flatMap((p) => (p.type === "text" ? [p.text] : []))
      .join("");
    expect(storedText).toBe(live);
  });
});
