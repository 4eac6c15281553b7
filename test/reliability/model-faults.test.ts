/**
 * The model endpoint failing while it streams, through the real provider path (`@ai-sdk/openai` configured by
 * OPENAI_API_KEY / OPENAI_BASE_URL against a local OpenAI-compatible server that misbehaves): the chat stream ends
 * with an error event instead of hanging, and the conversation is saved with the user's message.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { POST as chat } from "@/app/chat/route";
import { resetBreakersForTests } from "@/lib/agent/breaker";
import { setAgentModelForTests } from "@/lib/agent/model";
import { insertSiteRow, parseUiStream, type Chunk } from "@/test/agent-site";
import { listMessages } from "@/lib/db/queries";
import { useTestDatabase } from "@/lib/db/testing";
import { resetEnvForTests } from "@/lib/env";
import { newUser } from "@/test/accounts";
import { call } from "@/test/http";

useTestDatabase();

type Fault = "cut" | "garbage" | "stall" | "http_500";
let fault: Fault = "cut";
let server: Server;
const open = new Set<ServerResponse>();

function chunk(delta: Record<string, unknown>, finish: string | null = null) {
  return `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      if (fault === "http_500") {
        response
          .writeHead(500, { "content-type": "application/json" })
          .end(JSON.stringify({ error: { message: "upstream exploded", type: "server_error" } }));
        return;
      }
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(chunk({ role: "assistant", content: "Let me look at " }));
      if (fault === "cut") setTimeout(() => response.socket?.destroy(), 50);
      if (fault === "garbage") response.end("data: {this is not json\n\ndata: [DONE]\n\n");
      if (fault === "stall") open.add(response); // never another byte
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  resetEnvForTests({
    OPENAI_API_KEY: "sk-test-faults",
    OPENAI_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    AGENT_MODEL: "faulty-model",
    AGENT_TIMEOUT_MS: "3000",
  });
  setAgentModelForTests(undefined);
});

afterAll(async () => {
  resetEnvForTests({
    OPENAI_API_KEY: "",
    OPENAI_BASE_URL: undefined,
    AGENT_MODEL: undefined,
    AGENT_TIMEOUT_MS: undefined,
  });
  for (const response of open) response.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => resetBreakersForTests());

async function chatThrough(f: Fault) {
  fault = f;
  // The stall is what the run's time limit is for; the others must end by themselves (a 500 is retried once,
  // after the SDK's 2 s delay), so they get room beyond it.
  resetEnvForTests({ AGENT_TIMEOUT_MS: f === "stall" ? "3000" : "8000" });
  const user = await newUser("model");
  const siteId = await insertSiteRow({
    userId: user.id,
    url: "https://localhost:1",
    token: `swt_${"t".repeat(40)}`,
    secret: `sws_${"s".repeat(40)}`,
    info: { name: "Faults", token: { capabilities: ["site:read"] } },
  });
  const started = performance.now();
  const res = await call(chat, {
    body: { siteId, message: `Hello (${f})` },
    cookie: user.cookie,
    path: "/chat",
    headers: { origin: "http://localhost:3000" },
  });
  const ms = performance.now() - started;
  const chunks: Chunk[] = res.status === 200 ? parseUiStream(res.text) : [];
  return { res, ms, chunks, siteId, user };
}

async function savedMessages(chunks: Chunk[]) {
  const announced = chunks.find((c) => c.type === "data-conversation") as
    | { data?: { conversationId?: string } }
    | undefined;
  const conversationId = announced?.data?.conversationId;
  expect(conversationId, `a chunk naming the conversation: ${JSON.stringify(chunks.slice(0, 3))}`).toBeTruthy();
  return listMessages({ conversationId: conversationId! });
}

describe("the model endpoint failing mid-stream", () => {
  it.each<[string, Fault]>([
    ["cutting the connection after the first words", "cut"],
    ["sending something that is not JSON", "garbage"],
    ["answering 500", "http_500"],
  ])("ends the chat stream with an error event, and keeps the conversation, when %s", async (_label, f) => {
    const { res, ms, chunks } = await chatThrough(f);
    expect(res.status, res.text).toBe(200);
    expect(ms, "the stream ends; nothing hangs").toBeLessThan(10_000);
    const error = chunks.find((c) => c.type === "error");
    expect(error, JSON.stringify(chunks)).toBeTruthy();
    expect(String(error!.errorText)).not.toMatch(/ECONNRESET|stack|at .*\.js/);
    const saved = await savedMessages(chunks);
    expect(saved.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(JSON.stringify(saved[0]!.parts)).toContain(`Hello (${f})`);
  });

  it("ends a stream the endpoint stopped feeding at the run's time limit, and keeps the conversation", async () => {
    const { res, ms, chunks } = await chatThrough("stall");
    expect(res.status).toBe(200);
    expect(ms, "AGENT_TIMEOUT_MS bounds the turn").toBeLessThan(3000 + 5000);
    expect(chunks.at(-1)?.type, JSON.stringify(chunks.slice(-3))).toBe("finish");
    const saved = await savedMessages(chunks);
    expect(saved.map((m) => m.role)).toEqual(["user", "assistant"]);
  });
});
