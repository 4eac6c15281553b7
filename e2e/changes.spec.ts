import { expect, test, type Page } from "@playwright/test";
import { humanEditPost } from "../test/changes";
import { connectSite, frontEnd, signUp, useAppDatabase } from "./support/owner";
import { asServerDrewIt } from "./support/server-html";
import { e2eState } from "./support/state";

useAppDatabase();

async function signUpWithSite(page: Page) {
  return connectSite(await signUp(page, "changes"));
}

async function renameInChat(page: Page, siteId: string, pageId: number, title: string) {
  const { appUrl } = e2eState();
  await page.goto(`${appUrl}/sites/${siteId}/chat`);
  await page.getByLabel("Message").fill(`Rename page ${pageId} to "${title}"`);
  await page.getByRole("button", { name: "Send" }).click();
  const approval = page.locator('[data-testid="tool-card"][data-state="approval"]').last();
  await expect(approval.getByTestId("change-diff")).toBeVisible();
  return approval;
}

test("a published page's edit shows its diff, changes the site only once approved, and is undone from the Changes page", async ({
  page,
}) => {
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  const { siteId, admin } = await signUpWithSite(page);
  const { data: created } = await admin.post<{ id: number; link: string }>("/wp/v2/pages", {
    title: "Opening hours",
    content: "<!-- wp:paragraph --><p>Open 8 to 18</p><!-- /wp:paragraph -->",
    status: "publish",
  });
  const link = created.link;

  const approval = await renameInChat(page, siteId, created.id, "Summer opening hours");
  // The diff in words: the page by its title, the old and the new title.
  await expect(approval.locator("del")).toHaveText("Opening hours");
  await expect(approval.locator("ins")).toHaveText("Summer opening hours");
  expect(await frontEnd(link)).toContain("Opening hours");
  expect(await frontEnd(link)).not.toContain("Summer opening hours");
  await page.screenshot({ path: ".cache/screens/changes-approval.png", fullPage: true });
  // As the server drew the conversation, before the page's bundles ran, the card's Approve and Deny wait: a click
  // there would be lost (app/use-hydrated.ts).
  await asServerDrewIt(page, `${e2eState().appUrl}/sites/${siteId}/chat`, async (drawn) => {
    await expect(drawn.getByRole("button", { name: /^Approve: / })).toBeDisabled();
    await expect(drawn.getByRole("button", { name: /^Deny: / })).toBeDisabled();
  });

  await approval.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByText(`Renamed page ${created.id} to “Summer opening hours”.`)).toBeVisible();
  await expect.poll(async () => frontEnd(link)).toContain("Summer opening hours");

  // The turn links to its change set on the Changes page.
  await page.getByTestId("turn-changes").last().click();
  await expect(page).toHaveURL(/\/changes\/history#/);
  const set = page.getByTestId("change-set").first();
  await expect(set).toHaveAttribute("data-status", "applied");
  await expect(set.locator("ins")).toHaveText("Summer opening hours");
  await page.screenshot({ path: ".cache/screens/changes-page.png", fullPage: true });
  // As the server drew the Changes page, before its bundles ran, Undo waits (app/use-hydrated.ts).
  await asServerDrewIt(page, page.url(), async (drawn) => {
    await expect(drawn.getByTestId("change-set").first().getByRole("button", { name: "Undo" })).toBeDisabled();
  });
  await set.getByRole("button", { name: "Undo" }).click();
  await expect(page.getByTestId("change-set").first()).toHaveAttribute("data-status", "undone");
  const restored = await frontEnd(link);
  expect(restored).toContain("Opening hours");
  expect(restored).not.toContain("Summer opening hours");
  expect(errors).toEqual([]);
});

test("a person's edit made after the agent's makes Undo refuse, naming the page, and keeps the person's text", async ({
  page,
}) => {
  const { appUrl, site } = e2eState();
  const { siteId, admin } = await signUpWithSite(page);
  const { data: created } = await admin.post<{ id: number; link: string }>("/wp/v2/pages", {
    title: "Price list",
    content: "<!-- wp:paragraph --><p>Bread 3 €</p><!-- /wp:paragraph -->",
    status: "publish",
  });
  const approval = await renameInChat(page, siteId, created.id, "Our prices");
  await approval.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByText(`Renamed page ${created.id} to “Our prices”.`)).toBeVisible();

  // Ana edits the page in WordPress afterwards.
  await humanEditPost(site.wpPath, created.id, { title: "Prices 2027", content: "<p>Bread 4 € (Ana)</p>" });

  await page.goto(`${appUrl}/sites/${siteId}/changes/history`);
  const set = page.getByTestId("change-set").first();
  await set.getByRole("button", { name: "Undo" }).click();
  const refusal = set.getByTestId("undo-error");
  await expect(refusal).toContainText("Nothing was undone");
  // Named as Ana left it, not as it was called before Sitewright renamed it ("Price list").
  await expect(refusal).toContainText("“Prices 2027”");
  await expect(refusal).toContainText("changed on the site after Sitewright's edit");
  await page.screenshot({ path: ".cache/screens/changes-drifted.png", fullPage: true });
  await expect(set).toHaveAttribute("data-status", "applied");
  const html = await frontEnd(created.link);
  expect(html).toContain("Prices 2027");
  expect(html).toContain("Bread 4 € (Ana)");
});

test("one click approves every pending change of a turn", async ({ page }) => {
  const { appUrl } = e2eState();
  const { siteId, admin } = await signUpWithSite(page);
  const ids: number[] = [];
  for (const title of ["Lunch menu", "Dinner menu"]) {
    ids.push((await admin.post<{ id: number }>("/wp/v2/pages", { title, status: "publish" })).data.id);
  }
  await page.goto(`${appUrl}/sites/${siteId}/chat`);
  await page.getByLabel("Message").fill(`Rename pages ${ids[0]} and ${ids[1]} to "Menu"`);
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.locator('[data-testid="tool-card"][data-state="approval"]')).toHaveCount(2);
  await page.getByTestId("approve-all").click();
  await expect(page.getByText(`Renamed pages ${ids[0]} and ${ids[1]}.`)).toBeVisible();
  const titles = await Promise.all(
    ids.map(
      async (id) =>
        (await admin.get<{ title: { raw: string } }>(`/wp/v2/pages/${id}`, { context: "edit" })).data.title.raw,
    ),
  );
  expect(titles).toEqual(["Menu 1", "Menu 2"]);
});
