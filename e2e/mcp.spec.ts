/**
 * An agent that has never seen Sitewright connects over MCP as a person would set it up: the official SDK client
 * registers itself, the owner signs in and consents in Chromium, the client lists the site's pages, writes a draft
 * (at once) and renames a published page (pending until the owner approves it in Sitewright), the owner undoes it
 * from the Changes page, and after Disconnect on the account page the client is refused.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect, test } from "@playwright/test";
import { connectSite, frontEnd, signUp, useAppDatabase } from "./support/owner";
import { e2eState } from "./support/state";
import { memoryOAuthProvider } from "../test/mcp-client";
import { scaled } from "./support/waits";

useAppDatabase();

/** The agent's loopback callback, as native clients (VS Code, Claude Desktop) listen for the return. */
async function callbackServer() {
  let resolveCode: (code: string) => void = () => {};
  const code = new Promise<string>((resolve) => {
    resolveCode = resolve;
  });
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const found = url.searchParams.get("code");
    res.writeHead(200, { "content-type": "text/html" }).end("<p>Connected. You can close this window.</p>");
    if (found) resolveCode(found);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, code, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback` };
}

test("an MCP client connects with the owner's consent, and its visible change waits for the owner's click", async ({
  page,
}) => {
  const { appUrl } = e2eState();
  const userId = await signUp(page, "mcp");
  const { siteId, admin } = await connectSite(userId, "site:read,content:read,content:write");
  const { data: published } = await admin.post<{ id: number; link: string }>("/wp/v2/pages", {
    title: "Opening hours",
    content: "<!-- wp:paragraph --><p>Nine to five.</p><!-- /wp:paragraph -->",
    status: "publish",
  });
  const callback = await callbackServer();
  try {
    const auth = memoryOAuthProvider("Acme Agent", callback.url);
    const mcpUrl = new URL(`${appUrl}/mcp`);
    await expect(
      new Client({ name: "acme", version: "1.0.0" }).connect(
        new StreamableHTTPClientTransport(mcpUrl, { authProvider: auth }),
      ),
    ).rejects.toThrow(/nauthorized/);

    // The owner, signed in, consents in the browser.
    await page.goto(auth.authUrl!.toString());
    await expect(page.getByRole("heading", { name: "Connect “Acme Agent” to Sitewright?" })).toBeVisible();
    await expect(page.getByText("Sitewright has not verified it")).toBeVisible();
    await page.getByRole("checkbox").first().check();
    await page.getByRole("radio", { name: /Read and propose changes/ }).check();
    await page.getByRole("button", { name: "Connect" }).click();
    await expect(page.getByText("Connected. You can close this window.")).toBeVisible();
    const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: auth });
    await transport.finishAuth(await callback.code);

    const client = new Client({ name: "acme", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: auth }));
    const pages = await client.callTool({ name: "list_pages", arguments: { siteId } });
    expect(JSON.stringify(pages.content)).toContain("Opening hours");
    const draft = await client.callTool({
      name: "create_draft",
      arguments: { siteId, title: "Autumn menu", content: "Soon." },
    });
    expect((draft.structuredContent as { status: string }).status).toBe("applied");

    const rename = (
      await client.callTool({ name: "update_page", arguments: { siteId, id: published.id, title: "Opening times" } })
    ).structuredContent as { status: string; reviewUrl: string };
    expect(rename.status).toBe("pending");
    expect(await frontEnd(published.link)).not.toContain("Opening times");

    // The owner reviews it in Sitewright and approves.
    await page.goto(rename.reviewUrl);
    await expect(page.getByTestId("change-diff").locator("ins")).toContainText("Opening times");
    await page.getByRole("button", { name: "Approve" }).click();
    await expect(page.getByTestId("review-status")).toContainText("Applied");
    await expect(page.getByTestId("verification")).toHaveAttribute("data-status", "verified", {
      timeout: scaled(30_000),
    });
    await expect.poll(async () => frontEnd(published.link)).toContain("Opening times");

    // And undoes it from the Changes page.
    await page.goto(`${appUrl}/sites/${siteId}/changes/history`);
    const set = page.getByTestId("change-set").filter({ hasText: "Opening times" }).first();
    await set.getByRole("button", { name: "Undo" }).click();
    await expect(set).toHaveAttribute("data-status", "undone");
    await expect.poll(async () => frontEnd(published.link)).not.toContain("Opening times");

    // Disconnected on the account page, the client is refused.
    await page.goto(`${appUrl}/account`);
    const clients = page.getByTestId("connected-clients");
    await expect(clients).toContainText("Acme Agent");
    await clients.getByRole("button", { name: "Disconnect Acme Agent" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Disconnect" }).click();
    await expect(clients).toContainText("No application is connected");
    await expect(client.callTool({ name: "list_sites", arguments: {} })).rejects.toThrow();
  } finally {
    callback.server.close();
  }
});
