/**
 * A small local server speaking OpenAI's Chat Completions streaming protocol (`POST /v1/chat/completions` with
 * `stream: true`), answering each request with the next scripted step — text and/or tool calls — so the real
 * `@ai-sdk/openai` provider path runs in tests and the benchmark. Listens on 127.0.0.1, on a free port.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type OpenAIChatRequest = {
  model: string;
  stream?: boolean;
  messages: Array<{
    role: string;
    content?: unknown;
    tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
    tool_call_id?: string;
  }>;
  tools?: Array<{ type: "function"; function: { name: string; description?: string; parameters?: unknown } }>;
  [key: string]: unknown;
};

export type ScriptedReply = {
  text?: string;
  toolCalls?: Array<{ name: string; arguments: unknown; id?: string }>;
  /** Answer with this HTTP status and an OpenAI-style error instead. */
  status?: number;
  /** Wait before the first byte. */
  delayMs?: number;
  usage?: { prompt: number; completion: number };
};

export type ReplyScript = Array<ScriptedReply | ((request: OpenAIChatRequest, index: number) => ScriptedReply)>;

export type ScriptedServer = {
  /** `http://127.0.0.1:PORT/v1`: what OPENAI_BASE_URL should be. */
  baseURL: string;
  requests: Array<{ body: OpenAIChatRequest; authorization?: string }>;
  close(): Promise<void>;
};

/** The tool results the model has been sent so far, parsed, oldest first. */
export function toolMessages(request: OpenAIChatRequest): Array<{ toolCallId: string; content: unknown }> {
  return request.messages
    .filter((message) => message.role === "tool")
    .map((message) => {
      let content: unknown = message.content;
      try {
        content = JSON.parse(String(message.content));
      } catch {
        // plain text stays text
      }
      return { toolCallId: message.tool_call_id ?? "", content };
    });
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function send(response: ServerResponse, chunk: unknown) {
  response.write(`data: ${JSON.stringify(chunk)}\n\n`);
}

export async function startOpenAIScriptedServer(
  script: ReplyScript,
  options: { apiKey?: string } = {},
): Promise<ScriptedServer> {
  const requests: ScriptedServer["requests"] = [];
  let calls = 0;
  const server = createServer(async (request, response) => {
    if (request.method !== "POST" || !request.url?.endsWith("/chat/completions")) {
      response
        .writeHead(404, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { message: "Not found", type: "invalid_request_error" } }));
      return;
    }
    const authorization = request.headers.authorization;
    if (options.apiKey && authorization !== `Bearer ${options.apiKey}`) {
      response.writeHead(401, { "content-type": "application/json" }).end(
        JSON.stringify({
          error: { message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" },
        }),
      );
      return;
    }
    const body = JSON.parse(await readBody(request)) as OpenAIChatRequest;
    requests.push({ body, authorization });
    const entry = script[Math.min(calls, script.length - 1)]!;
    const reply = typeof entry === "function" ? entry(body, calls) : entry;
    calls += 1;
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    if (reply.status && reply.status >= 400) {
      response
        .writeHead(reply.status, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { message: "Scripted failure", type: "server_error" } }));
      return;
    }

    const id = `chatcmpl-${calls}`;
    const created = Math.floor(Date.now() / 1000);
    const base = { id, object: "chat.completion.chunk", created, model: body.model, system_fingerprint: "scripted" };
    response.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
    });
    send(response, {
      ...base,
      choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }],
    });
    if (reply.text) {
      // In two pieces, as real providers stream.
      const middle = Math.ceil(reply.text.length / 2);
      for (const piece of [reply.text.slice(0, middle), reply.text.slice(middle)]) {
        if (piece) send(response, { ...base, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
      }
    }
    for (const [index, call] of (reply.toolCalls ?? []).entries()) {
      const args = JSON.stringify(call.arguments);
      const callId = call.id ?? `call_${calls}_${index}`;
      send(response, {
        ...base,
        choices: [
          {
            index: 0,
            delta: {
              tool_calls: [{ index, id: callId, type: "function", function: { name: call.name, arguments: "" } }],
            },
            finish_reason: null,
          },
        ],
      });
      const middle = Math.ceil(args.length / 2);
      for (const piece of [args.slice(0, middle), args.slice(middle)]) {
        send(response, {
          ...base,
          choices: [
            { index: 0, delta: { tool_calls: [{ index, function: { arguments: piece } }] }, finish_reason: null },
          ],
        });
      }
    }
    const finishReason = reply.toolCalls?.length ? "tool_calls" : "stop";
    send(response, { ...base, choices: [{ index: 0, delta: {}, finish_reason: finishReason }] });
    const usage = reply.usage ?? { prompt: 100, completion: 20 };
    send(response, {
      ...base,
      choices: [],
      usage: {
        prompt_tokens: usage.prompt,
        completion_tokens: usage.completion,
        total_tokens: usage.prompt + usage.completion,
      },
    });
    response.end("data: [DONE]\n\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
