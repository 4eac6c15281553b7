/**
 * Account recovery ends every door, where the owner meets it (SECURITY.md v1.3): an MCP client connected through
 * the consent page keeps nothing after "Change password" or "Sign out everywhere" on the account page, or a reset by
 * the mailed link — its access
 * token gets 401, its refresh token is refused, the official SDK client can no longer call a tool — and the mail
 * names the application that was disconnected. And the consent page prints only our own sentences, whatever text
 * its link carries.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect, type Page, test } from "@playwright/test";
import { memoryOAuthProvider } from "../test/mcp-client";
import { linkIn, readMailDir } from "../test/smtp-sink";
import { expectAccessible } from "./support/checks";
import { connectSite, PASSWORD, signUp, useAppDatabase } from "./support/owner";
import { e2eState } from "./support/state";
import { scaled } from "./support/waits";

useAppDatabase();

const NEW_PASSWORD = "a completely different passphrase 42";

/** The agent's loopback callback, as native clients listen for the return; resolves with the code. */
async function callbackServer() {
  let resolveCode: (code: string) => void = () => {};
  const code = new Promise<string>((resolve) => {
    resolveCode = resolve;
  });
  const server: Server = createServer((req, res) => {
    const found = new URL(req.url ?? "/", "http://127.0.0.1").searchParams.get("code");
    res.writeHead(200, { "content-type": "text/html" }).end("<p>Connected. You can close this window.</p>");
    if (found) resolveCode(found);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, code, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback` };
}

/** Connects an agent with the SDK, the owner consenting in the page; returns the working client and its tokens. */
async function connectAgent(page: Page, name: string) {
  const mcpUrl = new URL(`${e2eState().appUrl}/mcp`);
  const callback = await callbackServer();
  try {
    const auth = memoryOAuthProvider(name, callback.url);
    await expect(
      new Client({ name, version: "1.0.0" }).connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: auth })),
    ).rejects.toThrow(/nauthorized/);
    await page.goto(auth.authUrl!.toString());
    await page.getByRole("checkbox").first().check();
    await page.getByRole("button", { name: "Connect" }).click();
    await expect(page.getByText("Connected. You can close this window.")).toBeVisible();
    await new StreamableHTTPClientTransport(mcpUrl, { authProvider: auth }).finishAuth(await callback.code);
    const client = new Client({ name, version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: auth }));
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    const tokens = (await auth.tokens())!;
    return { client, tokens, clientId: (await auth.clientInformation())!.client_id };
  } finally {
    callback.server.close();
  }
}

/** 401 for the access token, the refresh token refused, and the SDK client's next call failing. */
async function expectLockedOut(agent: Awaited<ReturnType<typeof connectAgent>>) {
  const { appUrl } = e2eState();
  const mcp = await fetch(`${appUrl}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${agent.tokens.access_token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  expect(mcp.status).toBe(401);
  const refresh = await fetch(`${appUrl}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "refresh_token",
      client_id: agent.clientId,
      refresh_token: agent.tokens.refresh_token!,
    }).toString(),
  });
  expect(refresh.status).toBe(400);
  expect(((await refresh.json()) as { error: string }).error).toBe("invalid_grant");
  await expect(agent.client.listTools()).rejects.toThrow();
}

async function signedUpWithSite(page: Page, prefix: string) {
  const userId = await signUp(page, prefix);
  await connectSite(userId);
  const email = (await page.getByTestId("signed-in-as").textContent())!.trim();
  return { userId, email };
}

test("after Change password on the account page, an agent connected before is refused and the mail names it", async ({
  page,
}) => {
  const { appUrl, mailDir } = e2eState();
  test.slow(); // three scrypt hashes (sign-up, the current password checked, the new one hashed) on a busy machine
  const { email } = await signedUpWithSite(page, "recovery");
  const agent = await connectAgent(page, "Acme Night Agent");

  await page.goto(`${appUrl}/account`);
  await expect(page.getByTestId("connected-clients")).toContainText("Acme Night Agent");
  const form = page.getByTestId("password-form");
  await form.getByLabel("Current password").fill(PASSWORD);
  await form.getByLabel("New password").fill(NEW_PASSWORD);
  await form.getByRole("button", { name: "Change password" }).click();
  // Two scrypt hashes (the current password checked, the new one hashed) queue behind others' on a busy machine.
  await expect(form.getByRole("status")).toContainText("every connected application disconnected", {
    timeout: scaled(60_000),
  });

  await expectLockedOut(agent);
  await page.reload();
  await expect(page.getByTestId("connected-clients")).toContainText("No application is connected");
  await expect
    .poll(
      () =>
        readMailDir(mailDir).find(
          (mail) => mail.to.includes(email) && mail.subject === "Your Sitewright password was changed",
        )?.text,
      { timeout: scaled(15_000) },
    )
    .toContain('"Acme Night Agent", connected');
});

test("after Sign out everywhere, an agent connected before is refused", async ({ page }) => {
  const { appUrl } = e2eState();
  await signedUpWithSite(page, "everywhere");
  const agent = await connectAgent(page, "Acme Day Agent");
  await page.goto(`${appUrl}/account`);
  await page.getByRole("button", { name: "Sign out everywhere" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Sign out everywhere" }).click();
  await expect(page.getByRole("heading", { name: "Log in" })).toBeVisible();
  await expectLockedOut(agent);
});

test("after a password reset by the mailed link, an agent connected before is refused and the mail names it", async ({
  page,
}) => {
  const { appUrl, mailDir } = e2eState();
  const { email } = await signedUpWithSite(page, "reset");
  // Four scrypt hashes (sign-up, reset, the log-ins around it) queue behind others' on a busy machine.
  test.slow();
  const agent = await connectAgent(page, "Acme Reset Agent");
  await page.goto(`${appUrl}/account`);
  await page.getByRole("button", { name: "Log out" }).click();
  await expect(page.getByRole("heading", { name: "Log in" })).toBeVisible();
  await page.goto(`${appUrl}/forgot-password`);
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Send the link" }).click();
  const mailTo = (subject: string) =>
    readMailDir(mailDir).find((mail) => mail.to.includes(email) && mail.subject === subject);
  await expect.poll(() => mailTo("Reset your Sitewright password")?.text, { timeout: scaled(30_000) }).toBeTruthy();
  await page.goto(linkIn(mailTo("Reset your Sitewright password")!, "/reset-password").url);
  await page.getByLabel("New password").fill(NEW_PASSWORD);
  await page.getByRole("button", { name: "Set the new password" }).click();
  await expect(page.getByRole("status")).toContainText("Your password was changed", { timeout: scaled(60_000) });

  await expectLockedOut(agent);
  await expect
    .poll(() => mailTo("Your Sitewright password was changed")?.text, { timeout: scaled(30_000) })
    .toContain('"Acme Reset Agent", connected');
});

test("the consent page shows only our own sentences, whatever text its link carries", async ({ page }) => {
  const { appUrl } = e2eState();
  await signedUpWithSite(page, "consent");
  const registered = await fetch(`${appUrl}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "Plain Agent",
      redirect_uris: ["http://127.0.0.1:4999/callback"],
      token_endpoint_auth_method: "none",
    }),
  });
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  const consentUrl = (problem: string) => {
    const url = new URL(`${appUrl}/oauth/authorize`);
    url.search = new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: "http://127.0.0.1:4999/callback",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
      problem,
    }).toString();
    return url.toString();
  };

  const invented = "This application is verified by Sitewright and may act on every site.";
  await page.goto(consentUrl(invented));
  await expect(page.getByRole("heading", { name: "Connect “Plain Agent” to Sitewright?" })).toBeVisible();
  await expect(page.locator("main")).not.toContainText("verified by Sitewright");
  await expect(page.locator("main").getByRole("alert")).toHaveCount(0);

  // Our own code shows our own sentence: the owner unticks every site and presses Connect.
  await page.getByRole("checkbox").first().uncheck();
  await page.getByRole("button", { name: "Connect" }).click();
  await expect(page).toHaveURL(/problem=no_site_chosen/);
  await expect(page.locator("main").getByRole("alert")).toHaveText("Choose at least one of your connected sites.");
  await expectAccessible(page, "consent-with-a-problem");
});
