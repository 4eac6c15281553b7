/**
 * Reach (issue #22) in Chromium against the real WordPress: the categories of two posts, a page's SEO description
 * (in Yoast SEO's own storage, through a stand-in that keeps Yoast's keys and prints its meta description as Yoast
 * does), an image's alt text and a schedule are changed through the chat; each card names what changes in the
 * owner's words; after the click the site shows it; each is undone from the Changes page; and an undo over the
 * owner's own newer edit in wp-admin is refused, keeping theirs.
 */
import { rmSync } from "node:fs";
import path from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { installMuPlugin, runAsAdmin } from "../test/wordpress";
import { connectSite, frontEnd, signUp, useAppDatabase } from "./support/owner";
import { e2eState } from "./support/state";

useAppDatabase();

const YOAST_STAND_IN = "sitewright-e2e-yoast-stand-in.php";
const php = <T>(body: string, args: unknown = null) => runAsAdmin<T>(e2eState().site.wpPath, body, args);

test.beforeAll(() => {
  installMuPlugin(
    e2eState().site.wpPath,
    YOAST_STAND_IN,
    `<?php
define( 'WPSEO_VERSION', '24.0' );
add_action( 'wp_head', function () {
	if ( is_singular() && '' !== ( $d = get_post_meta( get_queried_object_id(), '_yoast_wpseo_metadesc', true ) ) ) {
		echo '<meta name="description" content="' . esc_attr( $d ) . '" />' . "\\n";
	}
} );
`,
  );
});
test.afterAll(() => {
  rmSync(path.join(e2eState().site.wpPath, "wp-content", "mu-plugins", YOAST_STAND_IN), { force: true });
});

/** Asks the scripted model for one operation, and answers the approval card; returns the card. */
async function ask(page: Page, siteId: string, operation: string, args: Record<string, unknown>) {
  await page.goto(`${e2eState().appUrl}/sites/${siteId}/chat?new=1`); // a new conversation: one "Done" per page
  await page.getByLabel("Message").fill(`call ${operation} ${JSON.stringify(args)}`);
  await page.getByRole("button", { name: "Send" }).click();
  const approval = page.locator('[data-testid="tool-card"][data-state="approval"]').last();
  await expect(approval).toBeVisible();
  return approval;
}

async function approve(page: Page, approval: ReturnType<Page["locator"]>, operation: string) {
  await approval.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByText(`Done: ${operation}.`)).toBeVisible();
}

const post = (
  title: string,
  status = "publish",
  content = "<!-- wp:paragraph --><p>Fresh bread.</p><!-- /wp:paragraph -->",
) =>
  php<{ id: number; link: string }>(
    "$id = wp_insert_post(array('post_type' => $args[2] === 'page' ? 'page' : 'post', 'post_status' => $args[1], 'post_title' => $args[0], 'post_content' => $args[3])); echo json_encode(array('id' => $id, 'link' => get_permalink($id)));",
    [title, status, status === "page" ? "page" : "post", content],
  );

/** Undoes the change set `index` places from the newest (undone sets stay in the list, newest first). */
async function undoNewest(page: Page, siteId: string, index = 0) {
  await page.goto(`${e2eState().appUrl}/sites/${siteId}/changes/history`);
  const set = page.getByTestId("change-set").nth(index);
  await set.getByRole("button", { name: "Undo" }).click();
  return set;
}

test("categories, an SEO description, alt text and a schedule: shown in words, live after the click, undone", async ({
  page,
}) => {
  const { siteId } = await connectSite(await signUp(page, "reach"));
  await php("wp_insert_term('News', 'category'); echo 1;");
  const first = await post("Winter hours");
  const second = await post("Christmas stollen");

  // Two posts filed under News: one card per post, each naming the categories before and after.
  for (const target of [first, second]) {
    const card = await ask(page, siteId, "set_post_terms", {
      id: target.id,
      add: ["news"],
      remove: ["uncategorized"],
    });
    await expect(card).toContainText("Categories");
    await expect(card.locator("del")).toContainText("uncategorized");
    await expect(card.locator("ins")).toContainText("news");
    await approve(page, card, "set_post_terms");
    expect(await frontEnd(target.link)).toContain(">News<");
  }

  // The SEO description, by that name, in Yoast's storage and in the page's head.
  const seoCard = await ask(page, siteId, "update_seo", {
    type: "post",
    id: first.id,
    description: "Open 7 to 6, Monday to Saturday.",
  });
  await expect(seoCard).toContainText("SEO description");
  await expect(seoCard).toContainText("Open 7 to 6, Monday to Saturday.");
  await approve(page, seoCard, "update_seo");
  expect(await frontEnd(first.link)).toContain(
    '<meta name="description" content="Open 7 to 6, Monday to Saturday." />',
  );

  // Alt text of an image a published post shows: visible, so it waits for the click.
  const image = await php<number>(
    "echo wp_insert_attachment(array('post_title' => 'Storefront', 'post_mime_type' => 'image/jpeg', 'post_status' => 'inherit'));",
  );
  const showcase = await post("Our shop front");
  await php("wp_update_post(array('ID' => (int) $args[0], 'post_content' => $args[1])); echo 1;", [
    showcase.id,
    `<!-- wp:image {"id":${image}} --><figure class="wp-block-image"><img class="wp-image-${image}" alt=""/></figure><!-- /wp:image -->`,
  ]);
  const altCard = await ask(page, siteId, "update_media", { id: image, alt: "The blue door of the bakery" });
  await expect(altCard).toContainText("Alt text");
  await approve(page, altCard, "update_media");
  expect(
    await php<string>("echo json_encode(get_post_meta((int) $args, '_wp_attachment_image_alt', true));", image),
  ).toBe("The blue door of the bakery");

  // A schedule in the site's time zone: the card says when, in the owner's time.
  await php("update_option('timezone_string', 'Europe/Berlin'); echo 1;");
  const draft = await post("New year opening", "draft");
  const at = `${new Date().getUTCFullYear() + 1}-01-02 09:00`;
  const scheduleCard = await ask(page, siteId, "schedule_post", { type: "post", id: draft.id, at });
  await expect(scheduleCard).toContainText("Scheduled");
  await expect(scheduleCard).toContainText(`${at} (Europe/Berlin)`);
  await approve(page, scheduleCard, "schedule_post");
  expect(await php<string>("echo json_encode(get_post_status((int) $args));", draft.id)).toBe("future");

  // Undo from the Changes page, newest first: the schedule, the alt text, the description, the categories.
  for (const [index, check] of [
    async () => expect(await php<string>("echo json_encode(get_post_status((int) $args));", draft.id)).toBe("draft"),
    async () =>
      expect(
        await php<string>("echo json_encode(get_post_meta((int) $args, '_wp_attachment_image_alt', true));", image),
      ).toBe(""),
    async () => expect(await frontEnd(first.link)).not.toContain('name="description"'),
    async () => expect(await frontEnd(second.link)).not.toContain(">News<"),
    async () => expect(await frontEnd(first.link)).not.toContain(">News<"),
  ].entries()) {
    const set = await undoNewest(page, siteId, index);
    await expect(set).toHaveAttribute("data-status", "undone");
    await check();
  }
});

test("an undo over the owner's newer SEO description in wp-admin is refused, and theirs is kept", async ({ page }) => {
  const { siteId } = await connectSite(await signUp(page, "reachdrift"));
  const target = await post("Catering");
  const card = await ask(page, siteId, "update_seo", {
    type: "post",
    id: target.id,
    description: "Catering for 10 to 200.",
  });
  await approve(page, card, "update_seo");
  await php("update_post_meta((int) $args, '_yoast_wpseo_metadesc', 'Catering, written by Ana.'); echo 1;", target.id);

  const set = await undoNewest(page, siteId);
  await expect(set.getByTestId("undo-error")).toContainText("Nothing was undone");
  await expect(set).toHaveAttribute("data-status", "applied");
  expect(await frontEnd(target.link)).toContain('content="Catering, written by Ana."');
});

/** Undoes the newest change set, which must be refused naming `title`, and stay applied. */
async function undoRefused(page: Page, siteId: string, title: string) {
  const set = await undoNewest(page, siteId);
  const error = set.getByTestId("undo-error");
  await expect(error).toContainText("Nothing was undone");
  await expect(error).toContainText(`“${title}”`);
  await expect(set).toHaveAttribute("data-status", "applied");
}

test("an undo over the owner's newer alt text, categories or schedule in wp-admin is refused, and theirs is kept", async ({
  page,
}) => {
  const { siteId } = await connectSite(await signUp(page, "reachdrift2"));

  // Alt text of an image a published post shows; Ana then writes her own in the media library.
  const image = await php<number>(
    "echo wp_insert_attachment(array('post_title' => 'Counter', 'post_mime_type' => 'image/jpeg', 'post_status' => 'inherit'));",
  );
  const showcase = await post("Our counter");
  await php("wp_update_post(array('ID' => (int) $args[0], 'post_content' => $args[1])); echo 1;", [
    showcase.id,
    `<!-- wp:image {"id":${image}} --><figure class="wp-block-image"><img class="wp-image-${image}" alt=""/></figure><!-- /wp:image -->`,
  ]);
  await approve(page, await ask(page, siteId, "update_media", { id: image, alt: "The shop counter" }), "update_media");
  await php(
    "update_post_meta((int) $args, '_wp_attachment_image_alt', 'Loaves on the counter, by Ana'); echo 1;",
    image,
  );
  await undoRefused(page, siteId, "Counter");
  expect(
    await php<string>("echo json_encode(get_post_meta((int) $args, '_wp_attachment_image_alt', true));", image),
  ).toBe("Loaves on the counter, by Ana");

  // A category assignment; Ana then files the post under Events in the post editor.
  await php("wp_insert_term('News', 'category'); wp_insert_term('Events', 'category'); echo 1;");
  const filed = await post("Summer fair");
  await approve(
    page,
    await ask(page, siteId, "set_post_terms", { id: filed.id, add: ["news"], remove: ["uncategorized"] }),
    "set_post_terms",
  );
  await php(
    "wp_set_post_terms((int) $args, array(get_term_by('slug', 'events', 'category')->term_id), 'category'); echo 1;",
    filed.id,
  );
  await undoRefused(page, siteId, "Summer fair");
  expect(
    await php<string[]>(
      "echo json_encode(wp_get_post_terms((int) $args, 'category', array('fields' => 'slugs')));",
      filed.id,
    ),
  ).toEqual(["events"]);

  // A schedule; Ana then moves the date in the post editor.
  const draft = await post("Spring menu", "draft");
  const year = new Date().getUTCFullYear() + 1;
  await approve(
    page,
    await ask(page, siteId, "schedule_post", { type: "post", id: draft.id, at: `${year}-03-01 09:00` }),
    "schedule_post",
  );
  const anasDate = `${year}-03-15 10:30:00`;
  await php(
    "wp_update_post(array('ID' => (int) $args[0], 'post_date' => $args[1], 'post_date_gmt' => get_gmt_from_date($args[1]), 'edit_date' => true)); echo 1;",
    [draft.id, anasDate],
  );
  await undoRefused(page, siteId, "Spring menu");
  expect(
    await php<{ status: string; date: string }>(
      "$p = get_post((int) $args); echo json_encode(array('status' => $p->post_status, 'date' => $p->post_date));",
      draft.id,
    ),
  ).toEqual({ status: "future", date: anasDate });
});
