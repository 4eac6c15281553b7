/**
 * Account recovery ends every door (SECURITY.md v1.3): an MCP client the owner (or whoever held their session)
 * connected before a password change, a password reset, "sign out everywhere" or the account's deletion is refused
 * afterwards — its access token gets 401 at /mcp, its refresh token is refused at /oauth/token, a code it had not
 * yet exchanged is refused, and the official SDK client itself can no longer call a tool. The "password changed"
 * mail names the applications that were disconnected. Another account's connection is untouched.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DELETE as deleteMe, GET as me } from "@/app/auth/me/route";
import { POST as forgot } from "@/app/auth/password/forgot/route";
import { POST as reset } from "@/app/auth/password/reset/route";
import { POST as changePassword } from "@/app/auth/password/route";
import { DELETE as signOutEverywhere } from "@/app/auth/sessions/route";
import { listGrantsForUser } from "@/lib/db/queries";
import { useTestDatabase } from "@/lib/db/testing";
import { backgroundMailSettled } from "@/lib/mail/mailer";
import { newUser } from "@/test/accounts";
import { insertSiteRow } from "@/test/agent-site";
import { call } from "@/test/http";
import { useMailSink } from "@/test/mail";
import { memoryOAuthProvider } from "@/test/mcp-client";
import { APP, connectMcpClient, consent, type McpTestServer, startMcpTestServer } from "@/test/mcp-server";
import { linkIn } from "@/test/smtp-sink";

useTestDatabase();
const sink = useMailSink();

const PASSWORD = "a long and unusual passphrase 7";
const NEW_PASSWORD = "an entirely new and unusual passphrase 8";
let server: McpTestServer;

beforeAll(async () => {
  server = await startMcpTestServer();
});

afterAll(() => server?.close());

type Owner = Awaited<ReturnType<typeof newUser>>;

/** An owner with one connected site (the MCP tools used here never reach it). */
async function ownerWithSite(prefix: string) {
  const owner = await newUser(prefix);
  const siteId = await insertSiteRow({
    userId: owner.id,
    url: "https://localhost:9",
    token: "unused-token",
    secret: "unused-secret",
    info: { name: "Bakery" },
  });
  return { owner, siteId };
}

/** A client connected through the whole OAuth flow with the SDK, working, and the tokens it holds. */
async function connected(owner: Owner, siteId: string, name: string) {
  const { client, auth } = await connectMcpClient({ server, name, access: "propose", owner, siteId });
  expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  const tokens = (await auth.tokens())!;
  expect(tokens.refresh_token).toBeTruthy();
  return { client, auth, clientId: (await auth.clientInformation())!.client_id, tokens };
}

const mcpStatus = async (accessToken: string) =>
  (
    await fetch(`http://127.0.0.1:${server.port}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${accessToken}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    })
  ).status;

const tokenRequest = async (fields: Record<string, string>) => {
  const response = await fetch(`http://127.0.0.1:${server.port}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
};

/** The client is out: 401 for its access token, its refresh token refused, and the SDK's next call fails. */
async function expectLockedOut(connection: Awaited<ReturnType<typeof connected>>) {
  expect(await mcpStatus(connection.tokens.access_token)).toBe(401);
  const refreshed = await tokenRequest({
    grant_type: "refresh_token",
    client_id: connection.clientId,
    refresh_token: connection.tokens.refresh_token!,
  });
  expect(refreshed.status).toBe(400);
  expect(refreshed.json.error).toBe("invalid_grant");
  await expect(connection.client.listTools()).rejects.toThrow();
}

/** The "password changed" mail to `email` received after `before` messages. */
async function changedMail(email: string, before: number) {
  await backgroundMailSettled();
  return sink().waitFor(
    email,
    (mail) => mail.subject === "Your Sitewright password was changed" && sink().messages.indexOf(mail) >= before,
  );
}

// Each test signs up (a scrypt hash) and connects clients through the whole OAuth flow: more than the default 30 s
// when the machine is busy.
describe("account recovery ends every OAuth grant", { timeout: 60_000 }, () => {
  it("refuses a client connected before a password change, keeps this session, and names the client in the mail", async () => {
    const { owner, siteId } = await ownerWithSite("change");
    const bystander = await ownerWithSite("bystander");
    const agent = await connected(owner, siteId, "Helpful Agent");
    const second = await connected(owner, siteId, "Night Shift Bot");
    const untouched = await connected(bystander.owner, bystander.siteId, "Someone Else's Agent");
    const before = sink().messages.length;

    const changed = await call(changePassword, {
      cookie: owner.cookie,
      body: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
    });
    expect(changed.status).toBe(204);

    await expectLockedOut(agent);
    await expectLockedOut(second);
    expect(await listGrantsForUser({ userId: owner.id })).toEqual([]);
    expect((await call(me, { cookie: owner.cookie })).status).toBe(200); // the session that changed it stays
    expect(await mcpStatus(untouched.tokens.access_token)).toBe(200);
    expect((await untouched.client.listTools()).tools.length).toBeGreaterThan(0);

    const mail = await changedMail(owner.email, before);
    expect(mail.text).toContain("changed on the account page");
    expect(mail.text).toContain('"Helpful Agent", connected');
    expect(mail.text).toContain('"Night Shift Bot", connected');
    expect(mail.text).not.toContain("Someone Else's Agent");

    // Connecting again afterwards works: the owner is not locked out of MCP, only the old grants are.
    const again = await connected(owner, siteId, "Helpful Agent");
    expect(await mcpStatus(again.tokens.access_token)).toBe(200);
  }, 120_000); // two accounts and four clients connected through the whole flow, three scrypt hashes

  it("refuses a client connected before a password reset, and names it in the mail", async () => {
    const { owner, siteId } = await ownerWithSite("reset");
    const agent = await connected(owner, siteId, "Reset Agent");
    const before = sink().messages.length;
    expect((await call(forgot, { body: { email: owner.email } })).status).toBe(202);
    await backgroundMailSettled();
    const resetMail = await sink().waitFor(owner.email, (m) => m.subject === "Reset your Sitewright password");
    const { token } = linkIn(resetMail, "/reset-password");

    const done = await call(reset, { body: { token, password: NEW_PASSWORD } });
    expect(done.status).toBe(200);

    await expectLockedOut(agent);
    const mail = await changedMail(owner.email, before);
    expect(mail.text).toContain("with a reset link");
    expect(mail.text).toContain('"Reset Agent", connected');
  });

  it("refuses a client connected before sign out everywhere, and a code it had not exchanged yet", async () => {
    const { owner, siteId } = await ownerWithSite("everywhere");
    const agent = await connected(owner, siteId, "Everywhere Agent");
    // A second client got the owner's consent but has not exchanged its code yet.
    const late = memoryOAuthProvider("Late Agent", "http://127.0.0.1:4999/callback");
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const options = { authProvider: late, fetch: server.fetch };
    const transport = new StreamableHTTPClientTransport(new URL(`${APP}/mcp`), options);
    await expect(new Client({ name: "late", version: "1.0.0" }).connect(transport)).rejects.toThrow(/nauthorized/);
    const back = await consent(late.authUrl!, { owner, siteId, access: "read" });

    const out = await call(signOutEverywhere, { method: "DELETE", cookie: owner.cookie });
    expect(out.status).toBe(204);

    await expectLockedOut(agent);
    const exchanged = await tokenRequest({
      grant_type: "authorization_code",
      client_id: (await late.clientInformation())!.client_id,
      code: back.searchParams.get("code")!,
      redirect_uri: "http://127.0.0.1:4999/callback",
      code_verifier: await late.codeVerifier(),
    });
    expect(exchanged.status).toBe(400);
    expect(exchanged.json.error).toBe("invalid_grant");
    expect((await call(me, { cookie: owner.cookie })).status).toBe(401);
  });

  it("refuses a client connected before the account was deleted", async () => {
    const { owner, siteId } = await ownerWithSite("deleted");
    const agent = await connected(owner, siteId, "Doomed Agent");
    const deleted = await call(deleteMe, { method: "DELETE", cookie: owner.cookie, body: { password: PASSWORD } });
    expect(deleted.status).toBe(204);
    await expectLockedOut(agent);
  });
});
