/**
 * Sitewright's MCP and OAuth route handlers behind a real HTTP server, as Next.js would put them at APP_URL, and an
 * agent connecting to them with the official SDK's client: it registers itself, the owner consents on the form the
 * consent page posts, the client finishes the flow. Used by lib/mcp/mcp.test.ts and lib/mcp/mcp-sandbox.test.ts.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect } from "vitest";
import { GET as authorizationServer } from "@/app/.well-known/oauth-authorization-server/route";
import { GET as protectedResource } from "@/app/.well-known/oauth-protected-resource/route";
import { DELETE as mcpDelete, GET as mcpGet, POST as mcpPost } from "@/app/mcp/route";
import { POST as decision } from "@/app/oauth/authorize/decision/route";
import { POST as registerRoute } from "@/app/oauth/register/route";
import { POST as revokeRoute } from "@/app/oauth/revoke/route";
import { POST as tokenRoute } from "@/app/oauth/token/route";
import { call } from "@/test/http";
import { memoryOAuthProvider } from "@/test/mcp-client";

export const APP = "http://localhost:3000";

type Handler = Parameters<typeof call>[0];
const ROUTES: Array<[string, string, Handler]> = [
  ["GET", "/.well-known/oauth-protected-resource", protectedResource as unknown as Handler],
  ["GET", "/.well-known/oauth-protected-resource/mcp", protectedResource as unknown as Handler],
  ["GET", "/.well-known/oauth-authorization-server", authorizationServer as unknown as Handler],
  ["POST", "/oauth/register", registerRoute as Handler],
  ["POST", "/oauth/token", tokenRoute as Handler],
  ["POST", "/oauth/revoke", revokeRoute as Handler],
  ["GET", "/mcp", mcpGet as Handler],
  ["POST", "/mcp", mcpPost as Handler],
  ["DELETE", "/mcp", mcpDelete as Handler],
];

export type McpTestServer = {
  port: number;
  /** The client believes it talks to APP_URL; the bytes go over HTTP to the test server. */
  fetch: typeof fetch;
  close(): void;
};

export async function startMcpTestServer(): Promise<McpTestServer> {
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? "/", APP);
    const found = ROUTES.find(([method, path]) => method === req.method && path === url.pathname);
    if (!found) {
      res.writeHead(404).end();
      return;
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
    const body = chunks.length && req.method !== "GET" ? Buffer.concat(chunks) : undefined;
    const response = await found[2](new Request(url, { method: req.method, headers, body }), {
      params: Promise.resolve({}),
    });
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const viaTestServer: typeof fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const target = `http://127.0.0.1:${port}${url.pathname}${url.search}`;
    return fetch(input instanceof Request ? new Request(target, input) : target, init);
  };
  return { port, fetch: viaTestServer, close: () => server.close() };
}

/** The owner's answer on the consent page: the form the page posts, with their session. */
export async function consent(
  authUrl: URL,
  answer: { owner: { cookie: string }; siteId: string; access: "read" | "propose"; approve?: boolean },
) {
  const form = new URLSearchParams(authUrl.searchParams);
  form.set("decision", answer.approve === false ? "deny" : "approve");
  form.set("access", answer.access);
  form.append("site", answer.siteId);
  const response = await call(decision as Handler, {
    method: "POST",
    rawBody: form.toString(),
    headers: { "content-type": "application/x-www-form-urlencoded", origin: APP },
    cookie: answer.owner.cookie,
  });
  expect(response.status).toBe(303);
  return new URL(response.headers.get("location")!);
}

/** Registers, consents and connects a client with the SDK, as a person connecting an agent would. */
export async function connectMcpClient(input: {
  server: McpTestServer;
  name: string;
  access: "read" | "propose";
  owner: { cookie: string };
  siteId: string;
}) {
  const auth = memoryOAuthProvider(input.name, "http://127.0.0.1:4999/callback");
  const options = { authProvider: auth, fetch: input.server.fetch };
  const first = new StreamableHTTPClientTransport(new URL(`${APP}/mcp`), options);
  await expect(new Client({ name: input.name, version: "1.0.0" }).connect(first)).rejects.toThrow(/nauthorized/);
  expect(auth.authUrl?.pathname).toBe("/oauth/authorize");
  expect(auth.authUrl?.searchParams.get("code_challenge_method")).toBe("S256");
  const back = await consent(auth.authUrl!, { owner: input.owner, siteId: input.siteId, access: input.access });
  await first.finishAuth(back.searchParams.get("code")!);
  const client = new Client({ name: input.name, version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${APP}/mcp`), options));
  return { client, auth };
}

/** A tool call's structured answer. */
export const structured = (result: Awaited<ReturnType<Client["callTool"]>>) =>
  result.structuredContent as Record<string, any>;
