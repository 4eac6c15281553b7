/**
 * Sitewright as an MCP server, driven by the official SDK's client over real HTTP (a Node server in front of our
 * route handlers), against the real WordPress with our plugin: the client registers itself, the owner consents,
 * the client lists pages, writes a draft at once, proposes a rename of a published page that waits for the owner's
 * click, the owner approves and undoes it; a read-only client cannot write; a revoked client is refused; the OAuth
 * rules (PKCE, single-use codes, refresh rotation, the audience) hold.
 */
import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { POST as registerRoute } from "@/app/oauth/register/route";
import { POST as revokeRoute } from "@/app/oauth/revoke/route";
import { POST as tokenRoute } from "@/app/oauth/token/route";
import { POST as approveRoute } from "@/app/sites/[id]/changes/[changeSetId]/approve/route";
import { POST as undoRoute } from "@/app/sites/[id]/changes/[changeSetId]/undo/route";
import { pairAgentSite, startAgentSite, type AgentTestSite } from "@/test/agent-site";
import { readItem } from "@/lib/sites/items";
import { revokeGrant } from "@/lib/db/queries";
import { useTestDatabase } from "@/lib/db/testing";
import { setVerificationDepsForTests } from "@/lib/workflows/verify-change-set";
import { newUser } from "@/test/accounts";
import { call } from "@/test/http";
import {
  APP,
  connectMcpClient,
  consent as consentAs,
  type McpTestServer,
  startMcpTestServer,
  structured,
} from "@/test/mcp-server";
import { runAsAdmin } from "@/test/wordpress";

// A whole OAuth flow and several signed round trips to the real site per test (each write also asks the site where
// visitors would see it): well over 30 s on a loaded two-core machine.
vi.setConfig({ testTimeout: 120_000 });

useTestDatabase();

let wp: AgentTestSite;
let owner: { cookie: string; id: string };
let siteId: string;
let server: McpTestServer;
let port: number;
let publishedId: number;

type Handler = Parameters<typeof call>[0];

beforeAll(async () => {
  wp = await startAgentSite();
  owner = await newUser("mcp");
  siteId = await pairAgentSite(wp, owner.id);
  publishedId = await runAsAdmin<number>(
    wp.local.wpPath,
    "echo json_encode(wp_insert_post(array('post_type' => 'page', 'post_status' => 'publish', 'post_title' => 'Opening hours', 'post_content' => '<!-- wp:paragraph --><p>Nine to five.</p><!-- /wp:paragraph -->')));",
  );
  setVerificationDepsForTests({ delays: [0] });
  server = await startMcpTestServer();
  port = server.port;
}, 120_000);

afterAll(async () => {
  setVerificationDepsForTests(undefined);
  server?.close();
  await wp?.local.stop();
});

const consent = (authUrl: URL, answer: { access: "read" | "propose"; approve?: boolean }) =>
  consentAs(authUrl, { owner, siteId, ...answer });
const connect = (name: string, access: "read" | "propose") => connectMcpClient({ server, name, access, owner, siteId });

describe("Sitewright over MCP", () => {
  it("connects a client that registered itself, writes a draft at once, makes a visible rename wait for the owner, and answers sandbox_unavailable in sandbox mode while sandboxes are off", async () => {
    const { client } = await connect("Claude (test)", "propose");
    const tools = (await client.listTools()).tools;
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining(["list_sites", "get_change_set", "list_pages", "create_draft", "update_page"]),
    );
    expect(tools.find((tool) => tool.name === "list_pages")?.annotations?.readOnlyHint).toBe(true);
    expect(tools.find((tool) => tool.name === "update_page")?.inputSchema.required).toContain("siteId");
    expect(tools.find((tool) => tool.name === "update_page")?.inputSchema.properties?.mode).toMatchObject({
      enum: ["live", "sandbox"],
      default: "live",
    });

    const sites = structured(await client.callTool({ name: "list_sites", arguments: {} }));
    expect(sites.sites).toEqual([expect.objectContaining({ id: siteId })]);
    const pages = await client.callTool({ name: "list_pages", arguments: { siteId } });
    expect(JSON.stringify(pages.content)).toContain("Opening hours");

    const draft = structured(
      await client.callTool({ name: "create_draft", arguments: { siteId, title: "Spring menu", content: "Soon." } }),
    );
    expect(draft.status).toBe("applied");

    const before = await readItem(wp.admin, `post:${publishedId}`);
    const rename = structured(
      await client.callTool({ name: "update_page", arguments: { siteId, id: publishedId, title: "Opening times" } }),
    );
    expect(rename.status).toBe("pending");
    expect(rename.reviewUrl).toBe(`${APP}/sites/${siteId}/review/${rename.changeSetId}`);
    expect((await readItem(wp.admin, `post:${publishedId}`)).version).toBe(before.version); // nothing visible changed

    const approved = await call(approveRoute as Handler, {
      method: "POST",
      headers: { origin: APP },
      cookie: owner.cookie,
      params: { id: siteId, changeSetId: rename.changeSetId },
    });
    expect(approved.status).toBe(200);
    expect((await readItem(wp.admin, `post:${publishedId}`)).title).toBe("Opening times");
    const state = structured(
      await client.callTool({ name: "get_change_set", arguments: { siteId, changeSetId: rename.changeSetId } }),
    );
    expect(state.status).toBe("applied");

    const twice = await call(approveRoute as Handler, {
      method: "POST",
      headers: { origin: APP },
      cookie: owner.cookie,
      params: { id: siteId, changeSetId: rename.changeSetId },
    });
    expect(twice.status).toBe(409);

    const undone = await call(undoRoute as Handler, {
      method: "POST",
      body: {},
      headers: { origin: APP },
      cookie: owner.cookie,
      params: { id: siteId, changeSetId: rename.changeSetId },
    });
    expect(undone.status).toBe(200);
    expect((await readItem(wp.admin, `post:${publishedId}`)).title).toBe("Opening hours");

    // Sandboxes are off here: sandbox mode is a tool error with our code, never a failed request.
    const undoneState = await readItem(wp.admin, `post:${publishedId}`);
    for (const [name, args] of [
      ["update_page", { id: publishedId, title: "Rehearsed" }],
      ["list_pages", {}],
    ] as const) {
      const answer = await client.callTool({ name, arguments: { siteId, mode: "sandbox", ...args } });
      expect(answer.isError).toBe(true);
      expect(structured(answer).error).toMatchObject({ code: "sandbox_unavailable" });
      expect(structured(answer).error.message).toMatch(/mode "live"/);
    }
    const unknownMode = await client.callTool({ name: "list_pages", arguments: { siteId, mode: "staging" } });
    expect(structured(unknownMode).error).toMatchObject({ code: "invalid_input" });
    expect(await readItem(wp.admin, `post:${publishedId}`)).toEqual(undoneState);
    await client.close();
  });

  it("lets a read-only client read but not write, and refuses a revoked client's next call", async () => {
    const { client } = await connect("Read-only agent", "read");
    const tools = (await client.listTools()).tools;
    const names = tools.map((tool) => tool.name);
    expect(names).toContain("list_pages");
    expect(names).not.toContain("update_page");
    // Sandbox mode is for rehearsing changes: a read-only connection is not offered it.
    expect(tools.find((tool) => tool.name === "list_pages")?.inputSchema.properties?.mode).toBeUndefined();
    const sandboxRead = await client.callTool({ name: "list_pages", arguments: { siteId, mode: "sandbox" } });
    expect(structured(sandboxRead).error).toMatchObject({ code: "not_allowed" });
    const refused = await client.callTool({
      name: "update_page",
      arguments: { siteId, id: publishedId, title: "Hacked" },
    });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain("only read");
    expect((await readItem(wp.admin, `post:${publishedId}`)).title).toBe("Opening hours");

    const { listGrantsForUser } = await import("@/lib/db/queries");
    const grant = (await listGrantsForUser({ userId: owner.id })).find((g) => g.clientName === "Read-only agent")!;
    expect(await revokeGrant({ id: grant.id, userId: owner.id, now: new Date() })).toBe(true);
    await expect(client.callTool({ name: "list_sites", arguments: {} })).rejects.toThrow();
  });

  it("answers 401 with the resource metadata address without a valid token", async () => {
    const response = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: "Bearer nope",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain(
      `resource_metadata="${APP}/.well-known/oauth-protected-resource"`,
    );
  });
});

describe("OAuth rules", () => {
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const redirect = "http://127.0.0.1:4999/callback";

  async function registered() {
    const response = await call(registerRoute as Handler, {
      body: { client_name: "Rules", redirect_uris: [redirect], token_endpoint_auth_method: "none" },
    });
    expect(response.status).toBe(201);
    return response.json.client_id as string;
  }

  async function code(clientId: string, access: "read" | "propose" = "propose") {
    const url = new URL(`${APP}/oauth/authorize`);
    for (const [name, value] of Object.entries({
      response_type: "code",
      client_id: clientId,
      redirect_uri: redirect,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "xyz",
    }))
      url.searchParams.set(name, value);
    const back = await consent(url, { access });
    expect(back.searchParams.get("state")).toBe("xyz");
    return back.searchParams.get("code")!;
  }

  const token = (fields: Record<string, string>) =>
    call(tokenRoute as Handler, {
      method: "POST",
      rawBody: new URLSearchParams(fields).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });

  it("refuses redirect URIs that are neither https nor loopback, and unknown grant types", async () => {
    for (const uri of [
      "http://example.com/cb",
      "javascript:alert(1)",
      "https://a.example/cb#frag",
      "https://user:pw@a.example/cb",
    ]) {
      const response = await call(registerRoute as Handler, { body: { client_name: "Bad", redirect_uris: [uri] } });
      expect(response.status).toBe(400);
      expect(response.json.error).toBe("invalid_redirect_uri");
    }
  });

  it("uses a code once, with the right verifier only, and revokes what a reused code issued", async () => {
    const clientId = await registered();
    const wrong = await token({
      grant_type: "authorization_code",
      client_id: clientId,
      code: await code(clientId),
      redirect_uri: redirect,
      code_verifier: randomBytes(32).toString("base64url"),
    });
    expect(wrong.status).toBe(400);
    expect(wrong.json.error).toBe("invalid_grant");

    const fresh = await code(clientId);
    const fields = {
      grant_type: "authorization_code",
      client_id: clientId,
      code: fresh,
      redirect_uri: redirect,
      code_verifier: verifier,
    };
    const first = await token(fields);
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ token_type: "Bearer", scope: "sites:read sites:propose" });
    const again = await token(fields);
    expect(again.json.error).toBe("invalid_grant");
    const mcp = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${first.json.access_token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(mcp.status).toBe(401); // the reuse revoked the first use's tokens
  });

  it("rotates refresh tokens and ends the family when a spent one comes back", async () => {
    const clientId = await registered();
    const issued = await token({
      grant_type: "authorization_code",
      client_id: clientId,
      code: await code(clientId),
      redirect_uri: redirect,
      code_verifier: verifier,
    });
    const rotated = await token({
      grant_type: "refresh_token",
      client_id: clientId,
      refresh_token: issued.json.refresh_token,
    });
    expect(rotated.status).toBe(200);
    expect(rotated.json.refresh_token).not.toBe(issued.json.refresh_token);
    const reused = await token({
      grant_type: "refresh_token",
      client_id: clientId,
      refresh_token: issued.json.refresh_token,
    });
    expect(reused.json.error).toBe("invalid_grant");
    const afterReuse = await token({
      grant_type: "refresh_token",
      client_id: clientId,
      refresh_token: rotated.json.refresh_token,
    });
    expect(afterReuse.json.error).toBe("invalid_grant");
  });

  it("issues tokens only for the MCP resource and refuses a code without PKCE S256", async () => {
    const clientId = await registered();
    const other = await token({
      grant_type: "authorization_code",
      client_id: clientId,
      code: await code(clientId),
      redirect_uri: redirect,
      code_verifier: verifier,
      resource: "https://other.example/mcp",
    });
    expect(other.json.error).toBe("invalid_target");
    const url = new URL(`${APP}/oauth/authorize`);
    url.search = new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: redirect,
      code_challenge: challenge,
      code_challenge_method: "plain",
    }).toString();
    const back = await consent(url, { access: "read" });
    expect(back.searchParams.get("error")).toBe("invalid_request");
    expect(back.searchParams.get("code")).toBeNull();
  });

  it("revokes a token on the client's request", async () => {
    const clientId = await registered();
    const issued = await token({
      grant_type: "authorization_code",
      client_id: clientId,
      code: await code(clientId),
      redirect_uri: redirect,
      code_verifier: verifier,
    });
    const revoked = await call(revokeRoute as Handler, {
      method: "POST",
      rawBody: new URLSearchParams({ client_id: clientId, token: issued.json.refresh_token }).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(revoked.status).toBe(200);
    const refresh = await token({
      grant_type: "refresh_token",
      client_id: clientId,
      refresh_token: issued.json.refresh_token,
    });
    expect(refresh.json.error).toBe("invalid_grant");
  });
});
