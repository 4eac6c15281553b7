/**
 * The product as a person meets it, in Chromium against the production build: chat replies that read well and
 * stay safe, honest wording when the model fails, conversations that survive disconnecting, the dashboard, the
 * pairing wizard after a reload, the account page, the 404 — each state checked with axe, at desktop and at
 * 390 px with no horizontal overflow, with a screenshot kept per step.
 */
import { expect, type Page, test } from "@playwright/test";
import { openDatabase, setDatabaseForTests, type DbHandle } from "../lib/db";
import { insertSiteRow } from "../test/agent-site";
import { checkState, expectNoHorizontalOverflow } from "./support/checks";
import { e2eState } from "./support/state";

const password = "a long and unusual passphrase 7";
let handle: DbHandle;

test.beforeAll(async () => {
  handle = await openDatabase(e2eState().databaseUrl);
  await setDatabaseForTests(handle);
});
test.afterAll(async () => {
  await setDatabaseForTests(undefined);
  await handle.close();
});

async function signUp(page: Page, prefix: string) {
  const { appUrl } = e2eState();
  await page.goto(`${appUrl}/signup`);
  await page.getByLabel("Email").fill(`${prefix}${Date.now()}@example.com`);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByTestId("signed-in-as")).toBeVisible();
  return (await (await page.request.get(`${appUrl}/auth/me`)).json()).user.id as string;
}

/**
 * A connected site row for the e2e WordPress (loopback), with credentials the plugin refuses: these specs never
 * need the site to act, and Disconnect's revoke call stays on loopback.
 */
const connectedSite = (userId: string, name = "Shop") =>
  insertSiteRow({ userId, url: e2eState().site.url, token: "swt_unused", secret: "sws_unused", info: { name } });
const host = () => new URL(e2eState().site.url).host;

async function send(page: Page, text: string) {
  await page.getByLabel("Message").fill(text);
  await page.getByRole("button", { name: "Send" }).click();
}

test("a reply in Markdown reads well and nothing in it runs", async ({ page }) => {
  const { appUrl } = e2eState();
  const userId = await signUp(page, "markdown");
  const siteId = await connectedSite(userId);
  await page.goto(`${appUrl}/sites/${siteId}/chat`);
  await checkState(page, "chat-empty");

  await send(page, "Show me markdown");
  const reply = page.locator('[data-role="assistant"]').last();
  await expect(reply.getByRole("heading", { name: "What I found" })).toBeVisible();
  await expect(reply.locator("strong")).toHaveText("About");
  await expect(reply.getByRole("table")).toContainText("Paragraph");
  await expect(reply.getByRole("link", { name: "the page" })).toHaveAttribute("rel", "noopener noreferrer nofollow");
  await expect(reply.getByText("a trap")).toBeVisible();
  await expect(reply.locator("a", { hasText: "a trap" })).toHaveCount(0);
  await expect(reply.locator("img, script")).toHaveCount(0);
  await expect(reply.getByRole("link", { name: "[Image: pixel]" })).toBeVisible();
  expect(await page.evaluate(() => (window as { __injected?: number }).__injected)).toBeUndefined();
  await expect(reply).not.toContainText("**");
  await expect(page.getByTestId("chat-status")).toHaveText("The assistant's reply is complete.");
  // The list is not one live region: the status line speaks, politely.
  await expect(page.getByTestId("messages").locator("[aria-live]")).toHaveCount(0);
  await expect(page.getByTestId("chat-status")).toHaveAttribute("aria-live", "polite");
  await checkState(page, "chat-markdown");
});

test("with the model endpoint failing, the chat says so and that nothing was changed, then offers Retry", async ({
  page,
}) => {
  const { appUrl } = e2eState();
  const userId = await signUp(page, "modeldown");
  const siteId = await connectedSite(userId);
  await page.goto(`${appUrl}/sites/${siteId}/chat`);
  await send(page, "The model breaks now");
  await expect(page.getByTestId("chat-error")).toHaveText(
    "The AI model provider answered with an error (HTTP 500). Try again in a moment.",
  );
  const reply = page.locator('[data-role="assistant"]').last();
  await expect(reply).toContainText("Nothing was changed on the site.");
  await expect(page.locator("body")).not.toContainText("changed partly");
  await expect(page.getByRole("button", { name: "Retry" })).toBeVisible();
  await checkState(page, "chat-model-error");

  // The stored reply says the same as the live one.
  const live = (await reply.textContent()) ?? "";
  await page.reload();
  await expect(page.locator('[data-role="assistant"]').last()).toHaveText(live);
});

test("conversations: new chat, a list per site, history kept after disconnecting and back after re-pairing", async ({
  page,
}) => {
  const { appUrl } = e2eState();
  const userId = await signUp(page, "conversations");
  const siteId = await connectedSite(userId);
  await page.goto(`${appUrl}/sites/${siteId}/chat`);
  await send(page, "Show me markdown");
  await expect(page.getByRole("heading", { name: "What I found" })).toBeVisible();
  await expect(page).toHaveURL(/\?c=/);

  await page.getByTestId("new-chat").click();
  await expect(page.locator('[data-role="assistant"]')).toHaveCount(0);
  await send(page, "Hello there");
  await expect(page.getByText("I can rename or publish a page.")).toBeVisible();
  // The new conversation joins the list at once, selected.
  await expect(page.getByTestId("conversation-list").locator('[aria-current="page"]')).toContainText("Hello there");
  await page.reload();
  await expect(page.getByTestId("conversation-list").getByRole("link")).toHaveCount(2);
  await expect(page.getByTestId("conversation-list")).toContainText("Show me markdown");
  await expect(page.getByTestId("conversation-list")).toContainText("Hello there");
  await checkState(page, "chat-conversations");

  // Disconnect asks first, in a dialog.
  await page.goto(`${appUrl}/`);
  await expect(page.getByTestId("sites")).toContainText("Connected");
  await expect(page.getByTestId("sites")).toContainText("Last activity");
  await page.getByRole("button", { name: `Disconnect ${host()}` }).click();
  const dialog = page.getByRole("dialog", { name: `Disconnect ${host()}?` });
  await expect(dialog).toBeVisible();
  await checkState(page, "dashboard-confirm-disconnect");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByTestId("sites")).toContainText("Connected");
  await page.getByRole("button", { name: `Disconnect ${host()}` }).click();
  await dialog.getByRole("button", { name: "Disconnect" }).click();
  await expect(page.getByTestId("disconnected")).toContainText("Shop");

  // The history stays readable.
  await page.getByTestId("disconnected").getByRole("link", { name: "Conversations" }).click();
  await expect(page.getByTestId("conversation-list").getByRole("link")).toHaveCount(2);
  await expect(page.getByRole("textbox", { name: "Message" })).toHaveCount(0);
  await checkState(page, "chat-disconnected-history");

  // Pairing the same address again brings the conversations back, and they can be continued.
  const again = await connectedSite(userId);
  await page.goto(`${appUrl}/sites/${again}/chat`);
  await expect(page.getByTestId("conversation-list").getByRole("link")).toHaveCount(2);
  await page
    .getByTestId("conversation-list")
    .getByRole("link", { name: /Show me markdown/ })
    .click();
  await expect(page.getByRole("heading", { name: "What I found" })).toBeVisible();
  await send(page, "Hello again");
  await expect(page.getByText("I can rename or publish a page.")).toBeVisible();
});

test("the reply is followed while streaming, and Jump to latest brings it back after scrolling up", async ({
  page,
}) => {
  const { appUrl } = e2eState();
  const userId = await signUp(page, "scroll");
  const siteId = await connectedSite(userId);
  await page.goto(`${appUrl}/sites/${siteId}/chat`);
  await send(page, "Give me a long answer");
  await expect(page.getByTestId("typing")).toBeVisible();
  await expect(page.getByText("Line 60 of a long answer.")).toBeVisible();
  const messages = page.getByTestId("messages");
  const atBottom = () => messages.evaluate((box) => box.scrollHeight - box.scrollTop - box.clientHeight <= 48);
  await expect.poll(atBottom).toBe(true);
  await messages.evaluate((box) => {
    box.scrollTop = 0;
    box.dispatchEvent(new Event("scroll"));
  });
  const jump = page.getByRole("button", { name: "Jump to latest" });
  await expect(jump).toBeVisible();
  await jump.click();
  await expect.poll(atBottom).toBe(true);
  await expect(jump).toHaveCount(0);
});

test("Stop ends the reply, says so, and Retry asks again", async ({ page }) => {
  const { appUrl } = e2eState();
  const userId = await signUp(page, "stop");
  const siteId = await connectedSite(userId);
  await page.goto(`${appUrl}/sites/${siteId}/chat`);
  // The model takes six seconds before its first word, so Stop is pressed while the assistant works.
  await send(page, "Take your time");
  await page.getByRole("button", { name: "Stop" }).click();
  await expect(page.getByTestId("chat-status")).toHaveText("Stopped.");
  const retry = page.getByRole("button", { name: "Retry" });
  await expect(retry).toBeVisible();
  await checkState(page, "chat-stopped");
  await retry.click();
  await expect(page.getByText("Here it is, after a while.")).toBeVisible();
  await expect(retry).toHaveCount(0);
  // The retried question is a new message, as the server stored it.
  await expect(page.locator('[data-role="user"]')).toHaveCount(2);
});

test("the wizard offers the plugin zip and the Sitewright address, and survives a reload", async ({ page }) => {
  const { appUrl, site } = e2eState();
  await signUp(page, "wizard");
  await page.goto(`${appUrl}/connect`);
  await expect(page.getByTestId("plugin-zip")).toHaveAttribute("href", "/plugin/sitewright-connector.zip");
  await expect(page.getByTestId("app-url")).toHaveText(appUrl);
  await expect(page.getByRole("button", { name: "Copy address (the Sitewright address)" })).toBeVisible();
  await checkState(page, "connect-start");

  // A mistake is tied to its input.
  await page.getByLabel("Site address").fill("http://plain-http.example");
  await page.getByRole("button", { name: "Get a pairing code" }).click();
  const input = page.getByLabel("Site address");
  await expect(input).toHaveAttribute("aria-invalid", "true");
  const describedBy = await input.getAttribute("aria-describedby");
  await expect(page.locator(`[id="${describedBy}"]`)).toHaveAttribute("role", "alert");
  await checkState(page, "connect-error");

  await input.fill(site.url);
  await page.getByRole("button", { name: "Get a pairing code" }).click();
  const first = (await page.getByTestId("pairing-code").textContent())!.trim();
  await expect(page.getByRole("button", { name: "Copy code (the pairing code)" })).toBeVisible();
  await checkState(page, "connect-code");

  // A reload in the same tab shows the same code again, until the owner starts over.
  await page.reload();
  await expect(page.getByTestId("pairing-code")).toHaveText(first);
  await page.getByRole("button", { name: "Start over" }).click();
  const unfinished = page.getByTestId("unfinished");
  await expect(unfinished).toContainText(site.url);
  await unfinished.getByRole("button", { name: `Get a new code for ${site.url}` }).click();
  const second = (await page.getByTestId("pairing-code").textContent())!.trim();
  expect(second).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
  expect(second).not.toBe(first);

  // The dashboard folds the superseded attempt away from the site in progress.
  await page.goto(`${appUrl}/`);
  await expect(page.getByTestId("site")).toHaveCount(1);
  await expect(page.getByTestId("sites")).toContainText("Waiting for the pairing code");
  await expect(page.getByTestId("abandoned")).toContainText("1 unfinished pairing attempt");
  await checkState(page, "dashboard-with-abandoned");
});

test("the account page changes the name, refuses a wrong current password, and deletes the account", async ({
  page,
}) => {
  const { appUrl } = e2eState();
  await signUp(page, "account");
  await page.getByTestId("signed-in-as").click();
  await expect(page.getByRole("heading", { name: "Your account", exact: true })).toBeVisible();
  await checkState(page, "account");
  const profile = page.getByTestId("profile-form");
  await profile.getByLabel("Name").fill("Grace");
  await profile.getByRole("button", { name: "Save" }).click();
  await expect(profile.getByRole("status")).toHaveText("Saved.");
  await page.reload();
  await expect(page.getByTestId("profile-form").getByLabel("Name")).toHaveValue("Grace");

  const change = page.getByTestId("password-form");
  await change.getByLabel("Current password").fill("not the password at all");
  await change.getByLabel("New password").fill("a different long passphrase 8");
  await change.getByRole("button", { name: "Change password" }).click();
  await expect(change.getByLabel("Current password")).toHaveAttribute("aria-invalid", "true");
  await expect(change).toContainText("That is not your current password.");
  await checkState(page, "account-wrong-password");

  // Deleting the account needs the password, then signs out and says it is done.
  const remove = page.getByTestId("delete-form");
  await remove.getByLabel("Password").fill(password);
  await remove.getByRole("button", { name: "Delete my account and its data" }).click();
  await expect(page.getByRole("status")).toHaveText("Your account and its data were deleted.");
  await expect(page.getByTestId("signed-in-as")).toHaveCount(0);
  expect((await page.request.get(`${appUrl}/auth/me`)).status()).toBe(401);

  await page.goto(`${appUrl}/no-such-page`);
  await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  await checkState(page, "not-found");
});

test("no page overflows sideways at 390 px, and each passes axe", async ({ browser }) => {
  const { appUrl } = e2eState();
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, ignoreHTTPSErrors: true });
  const page = await context.newPage();
  for (const [path, state] of [
    ["/", "390-home-signed-out"],
    ["/login", "390-login"],
    ["/signup", "390-signup"],
    ["/no-such-page", "390-not-found"],
  ] as const) {
    await page.goto(`${appUrl}${path}`);
    await checkState(page, state);
  }
  const userId = await signUp(page, "phone");
  const siteId = await connectedSite(userId, "A rather long site name, as people give them, for a phone screen");
  await page.goto(`${appUrl}/`);
  await checkState(page, "390-dashboard");
  await page.goto(`${appUrl}/sites/${siteId}/chat`);
  await send(page, "Show me markdown");
  await expect(page.getByRole("heading", { name: "What I found" })).toBeVisible();
  await checkState(page, "390-chat");
  await page.goto(`${appUrl}/connect`);
  await checkState(page, "390-connect");
  await page.getByLabel("Site address").fill(e2eState().site.url);
  await page.getByRole("button", { name: "Get a pairing code" }).click();
  const code = page.getByTestId("pairing-code");
  await expect(code).toBeVisible();
  // The code sits on one line.
  const { height, lineHeight } = await code.evaluate((el) => ({
    height: el.getBoundingClientRect().height,
    lineHeight: Number.parseFloat(getComputedStyle(el).lineHeight) || el.getBoundingClientRect().height,
  }));
  expect(height).toBeLessThanOrEqual(lineHeight * 1.5);
  await checkState(page, "390-connect-code");
  await page.goto(`${appUrl}/account`);
  await checkState(page, "390-account");
  await expectNoHorizontalOverflow(page, "390-account");
  await context.close();
});
