/**
 * Test fixtures for the agent: the real local WordPress with our plugin, an active site row pointing at it, the
 * UI message stream read back as chunks, an observer that counts requests to the site, and a TCP fault injector.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import net from "node:net";
import { getDb } from "@/lib/db";
import { sites, type SiteStatus } from "@/lib/db/schema";
import { createSiteClient, type SignedSiteClient } from "@/lib/sites/client";
import { encryptSecret } from "@/lib/sites/crypto";
import type { SiteClient } from "@/lib/sites/types";
import { type LocalSite, type LocalSiteOptions, startLocalSite } from "@/scripts/site-local/index";

export const ALL_SCOPES = "site:read,content:read,content:write,media:write,design:write,settings:write";

export type AgentTestSite = {
  local: LocalSite;
  token: string;
  secret: string;
  /** A client of our own for arranging and checking the site (not counted, not the agent's). */
  admin: SignedSiteClient;
  info: Record<string, unknown>;
  clientFor(url: string): SignedSiteClient;
};

export async function startAgentSite(scopes = ALL_SCOPES, options: LocalSiteOptions = {}): Promise<AgentTestSite> {
  const local = await startLocalSite(options);
  const { token, secret } = await local.cli<{ token: string; secret: string }>(
    "create-credentials",
    `--scopes=${scopes}`,
  );
  const ca = readFileSync(local.caPath, "utf8");
  const clientFor = (url: string) =>
    createSiteClient(
      { baseUrl: url, restUrl: `${url}/wp-json/`, token, secret },
      { ca, allowlist: ["localhost"], now: () => Date.now() },
    );
  const admin = clientFor(local.url);
  const info = (await admin.get<Record<string, unknown>>("/sitewright/v1/info")).data;
  return { local, token, secret, admin, info, clientFor };
}

/** An active (or other status) site row for `userId`, as pairing and confirmation would leave it. */
/**
 * The agent test site paired to a user in the store, as the chat finds it. `url` and `info` stand in for a faulty
 * link in front of the site or a description stored before the site changed (a theme switch).
 */
export function pairAgentSite(
  wp: AgentTestSite,
  userId: string,
  overrides: { url?: string; info?: Record<string, unknown> } = {},
): Promise<string> {
  return insertSiteRow({
    userId,
    url: overrides.url ?? wp.local.url,
    token: wp.token,
    secret: wp.secret,
    info: overrides.info ?? wp.info,
  });
}

export async function insertSiteRow(input: {
  userId: string;
  url: string;
  token: string;
  secret: string;
  info: Record<string, unknown>;
  status?: SiteStatus;
}): Promise<string> {
  const id = randomUUID();
  const at = new Date();
  const token = (input.info.token ?? {}) as { capabilities?: string[] };
  const db = await getDb();
  await db.insert(sites).values({
    id,
    userId: input.userId,
    url: input.url,
    status: input.status ?? "active",
    codeHmac: `test-${id}`,
    codeExpiresAt: at,
    restUrl: `${input.url}/wp-json/`,
    credentials: encryptSecret(JSON.stringify({ token: input.token, secret: input.secret }), id),
    pluginVersion: "test",
    name: typeof input.info.name === "string" ? input.info.name : null,
    pageBuilder: typeof input.info.pageBuilder === "string" ? input.info.pageBuilder : null,
    capabilities: token.capabilities ?? null,
    siteInfo: input.info,
    createdAt: at,
    pairedAt: at,
    confirmedAt: input.status === undefined || input.status === "active" ? at : null,
  });
  return id;
}

/** Wraps a site client and counts the requests that go through it. */
export function countingClient(
  client: SiteClient,
  counter: { requests: Array<{ method: string; route: string }> },
): SiteClient {
  const track =
    <A extends unknown[], R>(method: string, fn: (route: string, ...rest: A) => Promise<R>) =>
    (route: string, ...rest: A) => {
      counter.requests.push({ method, route });
      return fn(route, ...rest);
    };
  return {
    get: track("GET", client.get.bind(client)),
    post: track("POST", client.post.bind(client)),
    put: track("PUT", client.put.bind(client)),
    delete: track("DELETE", client.delete.bind(client)),
  } as SiteClient;
}

export type Chunk = { type: string; [key: string]: unknown };

/** The chunks of an AI SDK UI message stream (server-sent events), in order. */
export function parseUiStream(text: string): Chunk[] {
  return text
    .split("\n\n")
    .map((event) => event.replace(/^data: /, "").trim())
    .filter((data) => data !== "" && data !== "[DONE]" && !data.startsWith(":"))
    .map((data) => JSON.parse(data) as Chunk);
}

export const streamText = (chunks: Chunk[]) =>
  chunks
    .filter((c) => c.type === "text-delta")
    .map((c) => c.delta)
    .join("");

/**
 * A TCP forwarder in front of a real server, to cut the network to it: `down()` resets every new connection
 * (what a dead site looks like), `up()` forwards again. Counts the connections it saw.
 */
export async function startFaultyLink(targetPort: number) {
  let healthy = true;
  let connections = 0;
  const open = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections += 1;
    open.add(socket);
    socket.on("close", () => open.delete(socket));
    if (!healthy) {
      socket.resetAndDestroy();
      return;
    }
    const upstream = net.connect(targetPort, "127.0.0.1");
    socket.pipe(upstream).pipe(socket);
    upstream.on("error", () => socket.destroy());
    socket.on("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    url: `https://localhost:${port}`,
    connections: () => connections,
    down() {
      healthy = false;
      for (const socket of open) socket.destroy();
    },
    up() {
      healthy = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
