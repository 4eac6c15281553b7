import { expect, test } from "@playwright/test";
import { insertSiteRow } from "../test/agent-site";
import { connectSite, signUp, useAppDatabase } from "./support/owner";
import { e2eState } from "./support/state";

useAppDatabase();

test("asks for an edit in the chat, watches it stream, approves a publish, and the site changes", async ({ page }) => {
  const { appUrl } = e2eState();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));

  // A connected site, as pairing leaves it (pairing itself runs in pairing.spec.ts).
  const { siteId, admin } = await connectSite(await signUp(page, "chat"));
  const created = await admin.post<{ id: number }>("/wp/v2/pages", { title: "Before the chat", status: "draft" });
  const pageId = created.data.id;

  await page.goto(`${appUrl}/sites/${siteId}/chat`);
  await page.getByLabel("Message").fill(`Rename page ${pageId} to "Edited from the chat"`);
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByText(`Renamed page ${pageId} to “Edited from the chat”.`)).toBeVisible();
  await expect(page.locator('[data-testid="tool-card"][data-state="done"]')).toContainText("Before the chat");
  const renamed = await admin.get<{ title: { raw: string }; status: string }>(`/wp/v2/pages/${pageId}`, {
    context: "edit",
  });
  expect(renamed.data.title.raw).toBe("Edited from the chat");
  expect(renamed.data.status).toBe("draft");

  await page.getByLabel("Message").fill(`Publish page ${pageId}`);
  await page.getByRole("button", { name: "Send" }).click();
  const approval = page.locator('[data-testid="tool-card"][data-state="approval"]');
  await expect(approval).toContainText(String(pageId));
  // Nothing is published until the person approves.
  expect((await admin.get<{ status: string }>(`/wp/v2/pages/${pageId}`, { context: "edit" })).data.status).toBe(
    "draft",
  );
  await page.screenshot({ path: ".cache/screens/chat-approval.png", fullPage: true });
  // Each Approve names what it approves, so several on one screen are told apart.
  await approval.getByRole("button", { name: `Approve: Publish page ${pageId}`, exact: true }).click();
  await expect(page.getByText(`Page ${pageId} is handled.`)).toBeVisible();
  expect((await admin.get<{ status: string }>(`/wp/v2/pages/${pageId}`, { context: "edit" })).data.status).toBe(
    "publish",
  );

  await page.screenshot({ path: ".cache/screens/chat-done.png", fullPage: true });
  // The conversation survives a reload.
  await page.reload();
  await expect(page.getByText(`Renamed page ${pageId} to “Edited from the chat”.`)).toBeVisible();
  expect(errors).toEqual([]);
});

test("says the assistant is unavailable and labels offline replies when /chat cannot answer", async ({ page }) => {
  const { appUrl, site } = e2eState();
  const userId = await signUp(page, "offline");
  const siteId = await insertSiteRow({
    userId,
    url: site.url,
    token: "swt_unused",
    secret: "sws_unused",
    info: { name: "Offline test" },
  });

  // The service is down for this page: every /chat call answers 503, as an outage would.
  await page.route(
    (url) => url.pathname === "/chat",
    (route) =>
      route.fulfill({
        status: 503,
        contentType: "application/json",
        body: JSON.stringify({
          error: { code: "agent_unavailable", message: "The assistant is not configured on this server." },
        }),
      }),
  );
  await page.goto(`${appUrl}/sites/${siteId}/chat`);
  await page.getByLabel("Message").fill("Change the tagline");
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByTestId("assistant-unavailable")).toContainText("The assistant is unavailable");
  await expect(page.getByText("Offline reply", { exact: true })).toBeVisible();
  await page.screenshot({ path: ".cache/screens/chat-offline.png", fullPage: true });
});
