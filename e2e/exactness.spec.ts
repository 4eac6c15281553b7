/**
 * The click means exactly what it shows (issue 19), in Chromium against the real WordPress: a request that only
 * changes where a link points shows both addresses on the approval card; an approved one-paragraph edit next to an
 * administrator's map and form keeps both, and Undo from the Changes page gives the page back byte for byte.
 */
import { expect, type Page, test } from "@playwright/test";
import { runAsAdmin } from "../test/wordpress";
import { connectSite, frontEnd, signUp, useAppDatabase } from "./support/owner";
import { e2eState } from "./support/state";

useAppDatabase();

async function ask(page: Page, siteId: string, message: string) {
  await page.goto(`${e2eState().appUrl}/sites/${siteId}/chat`);
  await page.getByLabel("Message").fill(message);
  await page.getByRole("button", { name: "Send" }).click();
  const approval = page.locator('[data-testid="tool-card"][data-state="approval"]').last();
  await expect(approval.getByTestId("change-diff")).toBeVisible();
  return approval;
}

/** A published page an administrator wrote (with unfiltered_html), and its link. */
async function adminPage(title: string, content: string) {
  return runAsAdmin<{ id: number; link: string }>(
    e2eState().site.wpPath,
    "$id = wp_insert_post(wp_slash(array('post_type' => 'page', 'post_status' => 'publish', 'post_title' => $args['title'], 'post_content' => $args['content']))); echo json_encode(array('id' => $id, 'link' => get_permalink($id)));",
    { title, content },
  );
}

const storedContent = (id: number) =>
  runAsAdmin<string>(e2eState().site.wpPath, "echo json_encode(get_post((int) $args)->post_content);", id);

test("a link change with the same words shows the old and the new address on the approval card", async ({ page }) => {
  const { siteId } = await connectSite(await signUp(page, "exact-link"));
  const created = await adminPage(
    "Members",
    '<!-- wp:paragraph --><p>Members: <a href="https://example.com/login">Sign in</a> to see your account.</p><!-- /wp:paragraph -->',
  );
  const approval = await ask(
    page,
    siteId,
    `Point the sign in link of page ${created.id} to https://evil.example/login`,
  );
  const changes = approval.getByTestId("markup-changes");
  await expect(changes).toContainText("https://example.com/login");
  await expect(changes).toContainText("https://evil.example/login");
  await page.screenshot({ path: ".cache/screens/exactness-link.png", fullPage: true });
  expect(await frontEnd(created.link)).not.toContain("evil.example");

  await approval.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByText(`The sign-in link of page ${created.id} is handled.`)).toBeVisible();
  await expect.poll(async () => frontEnd(created.link)).toContain('href="https://evil.example/login"');
});

test("an approved one-paragraph edit keeps the administrator's map and form, and Undo gives every byte back", async ({
  page,
}) => {
  const { appUrl } = e2eState();
  const { siteId } = await connectSite(await signUp(page, "exact-embed"));
  const original =
    "<!-- wp:paragraph --><p>Find us here.</p><!-- /wp:paragraph -->" +
    '<!-- wp:html --><iframe src="https://maps.example.com/embed?pb=1" width="600" height="450"></iframe><!-- /wp:html -->' +
    '<!-- wp:html --><form action="https://forms.example.com/subscribe" method="post"><input type="email" name="email"><button>Join</button></form><!-- /wp:html -->';
  const created = await adminPage("Contact", original);

  const approval = await ask(page, siteId, `Change paragraph 1 of page ${created.id} to "Visit us on Monday."`);
  await approval.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByText(`Paragraph 1 of page ${created.id} is handled.`)).toBeVisible();
  const html = await frontEnd(created.link);
  expect(html).toContain("Visit us on Monday.");
  expect(html).toContain('src="https://maps.example.com/embed?pb=1"');
  expect(html).toContain('action="https://forms.example.com/subscribe"');

  await page.goto(`${appUrl}/sites/${siteId}/changes/history`);
  const set = page.getByTestId("change-set").first();
  await set.getByRole("button", { name: "Undo" }).click();
  await expect(set).toHaveAttribute("data-status", "undone");
  expect(await storedContent(created.id)).toBe(original);
});
