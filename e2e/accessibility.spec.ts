/**
 * axe in Chromium on every page state a person reaches (outside the pairing wizard, which product.spec.ts checks):
 * no serious or critical finding on login, sign-up, the sites list, the chat (empty, a long conversation, many
 * conversations, an approval), the Changes page, the review page before and after Approve, sandboxes, the account,
 * and the MCP consent page. And the keyboard: Tab reaches the conversation list and the long conversation, which
 * then scrolls with the keys.
 */
import { randomUUID } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect, type Page, test } from "@playwright/test";
import { insertConversation, saveMessages } from "../lib/db/queries";
import { memoryOAuthProvider } from "../test/mcp-client";
import { checkState } from "./support/checks";
import { connectSite, signUp, useAppDatabase } from "./support/owner";
import { e2eState } from "./support/state";
import { allowTest, scaled } from "./support/waits";

useAppDatabase();

/** A conversation longer than its scroll box, and `others` more conversations in the list. */
async function longConversation(userId: string, siteId: string, others = 25) {
  const at = Date.now();
  for (let i = 0; i < others; i++) {
    await insertConversation({
      id: randomUUID(),
      userId,
      siteId,
      title: `Earlier question ${i + 1} about the opening hours page`,
      now: new Date(at - (i + 2) * 60_000),
    });
  }
  const id = randomUUID();
  await insertConversation({ id, userId, siteId, title: "A long conversation", now: new Date(at) });
  const text = (i: number) =>
    `Message ${i + 1}: the opening hours are eight to six on weekdays and ten to four on Saturdays. `.repeat(3);
  await saveMessages({
    conversationId: id,
    messages: Array.from({ length: 30 }, (_, i) => ({
      id: randomUUID(),
      role: i % 2 === 0 ? ("user" as const) : ("assistant" as const),
      parts: [{ type: "text", text: text(i) }],
    })),
    now: new Date(at),
  });
  return id;
}

/** Presses Tab until `target` holds the focus (at most `presses` times); true when it did. */
async function tabTo(page: Page, target: string, presses = 80): Promise<boolean> {
  for (let i = 0; i < presses; i++) {
    await page.keyboard.press("Tab");
    if (await page.evaluate((selector) => document.activeElement?.closest(selector) !== null, target)) return true;
  }
  return false;
}

test("login and sign-up, empty and with an error, pass axe", async ({ page }) => {
  const { appUrl } = e2eState();
  await page.goto(`${appUrl}/login`);
  await checkState(page, "a11y-login");
  await page.getByLabel("Email").fill("nobody@example.com");
  await page.getByLabel("Password").fill("not the password at all");
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(page.getByText("The email or password is not right.")).toBeVisible();
  await checkState(page, "a11y-login-error");

  await page.goto(`${appUrl}/signup`);
  await checkState(page, "a11y-signup");
  await page.getByLabel("Email").fill(`short${Date.now()}@example.com`);
  await page.getByLabel("Password").fill("short");
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByText("Password must be at least 15 characters.")).toBeVisible();
  await checkState(page, "a11y-signup-error");
});

test("the sites list and the chat, empty and with a long conversation, pass axe", async ({ page }) => {
  allowTest(180_000);
  const { appUrl } = e2eState();
  const userId = await signUp(page, "a11y");
  const { siteId } = await connectSite(userId);
  await page.goto(appUrl);
  await checkState(page, "a11y-sites");

  await page.goto(`${appUrl}/sites/${siteId}/chat`);
  await expect(page.getByRole("textbox", { name: "Message" })).toBeVisible();
  await checkState(page, "a11y-chat-empty");

  const conversationId = await longConversation(userId, siteId);
  await page.goto(`${appUrl}/sites/${siteId}/chat?c=${conversationId}`);
  const messages = page.getByTestId("messages");
  await expect(messages).toContainText("Message 30");
  expect(await messages.evaluate((box) => box.scrollHeight > box.clientHeight)).toBe(true);
  await checkState(page, "a11y-chat-long");
});

test("an approval in the chat, the review page before and after Approve, and the Changes page pass axe", async ({
  page,
}) => {
  allowTest(180_000);
  const { appUrl } = e2eState();
  const userId = await signUp(page, "a11y-review");
  const { siteId, admin } = await connectSite(userId);
  const { data: created } = await admin.post<{ id: number }>("/wp/v2/pages", {
    title: "Opening hours",
    content: "<!-- wp:paragraph --><p>Open 8 to 18</p><!-- /wp:paragraph -->",
    status: "publish",
  });
  await page.goto(`${appUrl}/sites/${siteId}/chat?new=1`);
  await page.getByRole("textbox", { name: "Message" }).fill(`Rename page ${created.id} to "Summer opening hours"`);
  await page.getByRole("button", { name: "Send" }).click();
  const approval = page.locator('[data-testid="tool-card"][data-state="approval"]').last();
  await expect(approval.getByTestId("change-diff")).toBeVisible();
  await checkState(page, "a11y-chat-approval");

  const listed = await (await page.request.get(`${appUrl}/sites/${siteId}/changes`)).json();
  const pending = listed.changeSets.find((set: { status: string }) => set.status === "pending");
  await page.goto(`${appUrl}/sites/${siteId}/review/${pending.id}`);
  await expect(page.getByRole("button", { name: "Approve" })).toBeVisible();
  await checkState(page, "a11y-review-pending", { frames: false });
  await page.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByTestId("review-status")).toContainText("Applied");
  // The visitor's-eye check settles first (the page polls until it does).
  await expect(page.getByTestId("verification")).toHaveAttribute("data-status", "verified", {
    timeout: scaled(60_000),
  });
  await checkState(page, "a11y-review-applied", { frames: false });

  await page.goto(`${appUrl}/sites/${siteId}/changes/history`);
  await expect(page.getByTestId("change-set").first()).toHaveAttribute("data-status", "applied");
  await checkState(page, "a11y-changes");

  // Undo from the review page: its outcome line is the page's green text on the page background.
  await page.goto(`${appUrl}/sites/${siteId}/review/${pending.id}`);
  await page.getByRole("button", { name: "Undo on live site" }).click();
  await expect(page.getByTestId("review-outcome")).toContainText("Undone");
  await checkState(page, "a11y-review-undone", { frames: false });

  await page.goto(`${appUrl}/sites/${siteId}/changes/history`);
  await expect(page.getByTestId("change-set").first()).toHaveAttribute("data-status", "undone");
  await checkState(page, "a11y-changes-undone");
});

test("sandboxes and the account page pass axe", async ({ page }) => {
  const { appUrl } = e2eState();
  await signUp(page, "a11y-account");
  await page.goto(`${appUrl}/sandboxes`);
  await expect(page.getByRole("heading", { name: "Sandboxes" })).toBeVisible();
  await checkState(page, "a11y-sandboxes");
  await page.goto(`${appUrl}/account`);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await checkState(page, "a11y-account");
});

test("the MCP consent page passes axe", async ({ page }) => {
  const { appUrl } = e2eState();
  await signUp(page, "a11y-consent");
  const auth = memoryOAuthProvider("Acme Agent", "http://127.0.0.1:9/callback");
  await expect(
    new Client({ name: "acme", version: "1.0.0" }).connect(
      new StreamableHTTPClientTransport(new URL(`${appUrl}/mcp`), { authProvider: auth }),
    ),
  ).rejects.toThrow(/nauthorized/);
  await page.goto(auth.authUrl!.toString());
  await expect(page.getByRole("heading", { name: "Connect “Acme Agent” to Sitewright?" })).toBeVisible();
  await checkState(page, "a11y-consent");
});

test("Tab reaches the conversation list and the long conversation, which then scrolls with the keys", async ({
  page,
}) => {
  allowTest(120_000);
  const { appUrl } = e2eState();
  const userId = await signUp(page, "a11y-keys");
  const { siteId } = await connectSite(userId);
  const conversationId = await longConversation(userId, siteId, 30);
  await page.goto(`${appUrl}/sites/${siteId}/chat?c=${conversationId}`);
  const messages = page.getByTestId("messages");
  await expect(messages).toContainText("Message 30");

  // From the top of the page: first a conversation of the list, then the conversation itself.
  await page.locator("body").focus();
  expect(await tabTo(page, '[data-testid="conversation-list"] a')).toBe(true);
  await expect(page.locator('[data-testid="conversation-list"] a:focus')).toHaveCount(1);
  expect(await tabTo(page, '[data-testid="messages"]')).toBe(true);
  await expect(messages).toBeFocused();
  await expect(messages).toHaveAccessibleName("Chat history");

  // The chat opens at the latest message; the keyboard scrolls back to the first.
  const bottom = await messages.evaluate((box) => box.scrollTop);
  expect(bottom).toBeGreaterThan(0);
  await page.keyboard.press("Home");
  await expect.poll(() => messages.evaluate((box) => box.scrollTop)).toBe(0);
  await page.keyboard.press("End");
  await expect.poll(() => messages.evaluate((box) => box.scrollTop)).toBeGreaterThan(0);
  // Still the user's to type in: Tab moves on from the conversation to the message box.
  expect(await tabTo(page, "textarea, input[name=message]", 10)).toBe(true);
});
