/**
 * An Elementor page edited from the chat, on WordPress 7.1 with Elementor 4.2.2 (playwright.elementor.config.ts):
 * "change the hero heading … and point the button at /contact" shows both widget changes on the card by their place
 * on the page, writes nothing before Approve, shows both on the public page right after (verified there), and Undo
 * gives the page back byte for byte; a save in Elementor in between makes the undo refuse and say why.
 */
import { expect, type Page, test } from "@playwright/test";
import { runAsAdmin } from "../test/wordpress";
import { connectSite, frontEnd, signUp, useAppDatabase } from "./support/owner";
import { e2eState } from "./support/state";
import { scaled } from "./support/waits";

useAppDatabase();

const hero = [
  {
    id: "a1b2c3d",
    elType: "container",
    settings: { _title: "Hero" },
    elements: [
      {
        id: "h1h1h1h",
        elType: "widget",
        settings: { title: "Welcome to the bakery", header_size: "h1" },
        elements: [],
        widgetType: "heading",
      },
      {
        id: "b1b1b1b",
        elType: "widget",
        settings: { text: "Get in touch", link: { url: "/about", is_external: "" } },
        elements: [],
        widgetType: "button",
      },
    ],
    isInner: false,
  },
];

/** A published Elementor page as Elementor stores one (its data slashed JSON), viewed once so its caches are full. */
async function elementorPage(title: string): Promise<{ id: number; url: string }> {
  const created = await runAsAdmin<{ id: number; url: string }>(
    e2eState().site.wpPath,
    `$id = wp_insert_post(array('post_type' => 'page', 'post_status' => 'publish', 'post_title' => $args['title']));
     update_post_meta($id, '_elementor_edit_mode', 'builder');
     update_post_meta($id, '_elementor_template_type', 'wp-page');
     update_post_meta($id, '_elementor_version', '4.2.2');
     update_post_meta($id, '_elementor_data', wp_slash(wp_json_encode($args['data'])));
     echo json_encode(array('id' => $id, 'url' => get_permalink($id)));`,
    { title, data: hero },
  );
  expect(await frontEnd(created.url)).toContain("Welcome to the bakery");
  return created;
}

/** The page's stored bytes: its row and every meta key but Elementor's caches (derived, rebuilt on each view). */
const storedPage = (id: number) =>
  runAsAdmin<Record<string, string>>(
    e2eState().site.wpPath,
    `global $wpdb;
     $row = $wpdb->get_row($wpdb->prepare("SELECT post_title, post_content, post_status, post_modified FROM $wpdb->posts WHERE ID = %d", $args), ARRAY_A);
     $meta = $wpdb->get_results($wpdb->prepare("SELECT meta_key, meta_value FROM $wpdb->postmeta WHERE post_id = %d ORDER BY meta_id", $args), ARRAY_A);
     foreach ($meta as $m) {
       if (!in_array($m['meta_key'], array('_elementor_css', '_elementor_element_cache', '_elementor_page_assets'), true)) $row['meta ' . $m['meta_key']] = $m['meta_value'];
     }
     echo json_encode($row);`,
    id,
  );

/** A person changes the heading in Elementor and saves (Elementor's own document save: new data and version). */
const saveInElementor = (id: number, heading: string) =>
  runAsAdmin(
    e2eState().site.wpPath,
    `$document = \\Elementor\\Plugin::$instance->documents->get($args['id']);
     $data = json_decode(get_post_meta($args['id'], '_elementor_data', true), true);
     $data[0]['elements'][0]['settings']['title'] = $args['heading'];
     $document->save(array('elements' => $data));
     echo json_encode(true);`,
    { id, heading },
  );

async function askAndApprove(page: Page, siteId: string, id: number, heading: string) {
  await page.goto(`${e2eState().appUrl}/sites/${siteId}/chat`);
  await page
    .getByLabel("Message")
    .fill(`On page ${id}, change the hero heading to "${heading}" and point the button at /contact`);
  await page.getByRole("button", { name: "Send" }).click();
  const approval = page.locator('[data-testid="tool-card"][data-state="approval"]').last();
  await expect(approval.getByTestId("change-diff")).toBeVisible();
  return approval;
}

test("the hero heading and button change shows per widget, lands only once approved, is verified live, and Undo gives the page back byte for byte", async ({
  page,
}) => {
  const { appUrl } = e2eState();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  const { siteId, info } = await connectSite(await signUp(page, "elementor"));
  expect(info.builders).toEqual([{ name: "elementor", version: "4.2.2" }]);
  const { id, url } = await elementorPage("Bakery home");
  const before = await storedPage(id);
  const publicBefore = await frontEnd(url);

  const approval = await askAndApprove(page, siteId, id, "Bread baked every morning");
  const rows = approval.getByTestId("builder-row");
  await expect(rows).toHaveCount(2);
  await expect(page.getByText("text aimed at the assistant")).toHaveCount(0);
  await expect(rows.nth(0).locator("dt")).toHaveText("Hero › Heading · title");
  await expect(rows.nth(0).locator("del")).toHaveText("Welcome to the bakery");
  await expect(rows.nth(0).locator("ins")).toHaveText("Bread baked every morning");
  await expect(rows.nth(1).locator("dt")).toHaveText("Hero › Button · link.url");
  await expect(rows.nth(1).locator("del")).toHaveText("/about");
  await expect(rows.nth(1).locator("ins")).toHaveText("/contact");
  // Nothing is written before the click: not the stored page, not the public one.
  expect(await storedPage(id)).toEqual(before);
  expect(await frontEnd(url)).toBe(publicBefore);
  await page.screenshot({ path: ".cache/screens/elementor-approval.png", fullPage: true });

  await approval.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByText("The hero heading and its button are handled.")).toBeVisible();
  // Right after: Elementor's caches were cleared, so the public page shows both, and the live-page check says so.
  const live = await frontEnd(url);
  expect(live).toContain("Bread baked every morning");
  expect(live).toMatch(/href="\/contact"/);
  expect(live).not.toContain("Welcome to the bakery");
  const onCard = page.getByTestId("verification").last();
  await expect(onCard).toHaveAttribute("data-status", "verified", { timeout: scaled(30_000) });

  await page.goto(`${appUrl}/sites/${siteId}/changes/history`);
  const set = page.getByTestId("change-set").first();
  await expect(set).toHaveAttribute("data-status", "applied");
  await set.getByRole("button", { name: "Undo" }).click();
  await expect(page.getByTestId("change-set").first()).toHaveAttribute("data-status", "undone");
  await expect(set.getByTestId("verification")).toHaveAttribute("data-status", "verified", { timeout: scaled(30_000) });
  expect(await storedPage(id)).toEqual(before);
  const undone = await frontEnd(url);
  expect(undone).toContain("Welcome to the bakery");
  expect(undone).not.toContain("Bread baked every morning");
  expect(errors).toEqual([]);
});

test("a save in Elementor after Sitewright's edit makes Undo refuse, naming the page, and keeps the person's heading", async ({
  page,
}) => {
  const { appUrl } = e2eState();
  const { siteId } = await connectSite(await signUp(page, "elementor-stale"));
  const { id, url } = await elementorPage("Bakery offers");
  const approval = await askAndApprove(page, siteId, id, "Two loaves for one");
  await approval.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByText("The hero heading and its button are handled.")).toBeVisible();

  await saveInElementor(id, "Heading by Ana");
  const saved = await storedPage(id);

  await page.goto(`${appUrl}/sites/${siteId}/changes/history`);
  const set = page.getByTestId("change-set").first();
  await set.getByRole("button", { name: "Undo" }).click();
  const refusal = set.getByTestId("undo-error");
  await expect(refusal).toContainText("Nothing was undone");
  await expect(refusal).toContainText("“Bakery offers”");
  await expect(refusal).toContainText("changed on the site after Sitewright's edit");
  await expect(set).toHaveAttribute("data-status", "applied");
  expect(await storedPage(id)).toEqual(saved);
  expect(await frontEnd(url)).toContain("Heading by Ana");
});

test("a save in Elementor between the card and Approve makes the write refuse and say why; nothing is written", async ({
  page,
}) => {
  const { siteId } = await connectSite(await signUp(page, "elementor-race"));
  const { id } = await elementorPage("Bakery news");
  const approval = await askAndApprove(page, siteId, id, "Fresh news");
  await saveInElementor(id, "News by Ana");
  const saved = await storedPage(id);

  await approval.getByRole("button", { name: "Approve" }).click();
  const refusal = page.locator('[data-testid="tool-card"]').last();
  await expect(refusal).toContainText("Not written");
  await expect(refusal).toContainText(`"Bakery news" changed on the site after it was read`);
  await expect(refusal).toContainText("nothing was changed");
  expect(await storedPage(id)).toEqual(saved);
});
