/**
 * Approved alt text reaches visitors (issue 35, "Visible means where visitors see it"), in Chromium on the real
 * WordPress: "add alt text to the sourdough photo" in the chat plans the attachment and the published post whose
 * image block shows it, each an item on the card; after Approve the post's `<img alt>` carries the text and the
 * visitor's-eye check verifies it there; Undo from the Changes page puts both back.
 */
import { expect, test } from "@playwright/test";
import { runAsAdmin } from "../test/wordpress";
import { checkState } from "./support/checks";
import { connectSite, frontEnd, signUp, useAppDatabase } from "./support/owner";
import { e2eState } from "./support/state";
import { allowTest, scaled } from "./support/waits";

useAppDatabase();

const php = <T>(body: string, args: unknown = null) => runAsAdmin<T>(e2eState().site.wpPath, body, args);

test("an approved alt text shows in the published post's <img alt>, is verified there, and undo puts it back", async ({
  page,
}) => {
  allowTest(180_000);
  const { appUrl } = e2eState();
  const { siteId } = await connectSite(await signUp(page, "alttext"));
  const tag = `sourdough${Date.now()}`;
  // A photo with its file, shown by a published post's image block with no alt text, as the editor saves it.
  const made = await php<{ image: number; post: number; link: string }>(
    "require_once ABSPATH . 'wp-admin/includes/image.php'; $dir = wp_upload_dir()['basedir']; wp_mkdir_p($dir); $file = $dir . '/' . $args . '.jpg'; $im = imagecreatetruecolor(400, 300); imagefill($im, 0, 0, imagecolorallocate($im, 180, 140, 90)); imagejpeg($im, $file); $id = wp_insert_attachment(array('post_title' => 'Sourdough ' . $args, 'post_mime_type' => 'image/jpeg', 'post_status' => 'inherit'), $file); wp_update_attachment_metadata($id, wp_generate_attachment_metadata($id, $file)); $src = wp_get_attachment_url($id); $post = wp_insert_post(array('post_type' => 'post', 'post_status' => 'publish', 'post_title' => 'Our bakery ' . $args, 'post_content' => '<!-- wp:paragraph --><p>Fresh every morning.</p><!-- /wp:paragraph -->' . \"\\n\\n\" . '<!-- wp:image {\"id\":' . $id . ',\"sizeSlug\":\"full\"} -->' . \"\\n\" . '<figure class=\"wp-block-image size-full\"><img src=\"' . $src . '\" alt=\"\" class=\"wp-image-' . $id . '\"/></figure>' . \"\\n\" . '<!-- /wp:image -->')); echo json_encode(array('image' => $id, 'post' => $post, 'link' => get_permalink($post)));",
    tag,
  );
  const alt = "A sourdough loaf on a floured board";
  const imgTag = async () => /<img\b[^>]*wp-image-\d+[^>]*>/.exec(await frontEnd(made.link))?.[0] ?? "";
  expect(await imgTag()).toContain('alt=""');

  await page.goto(`${appUrl}/sites/${siteId}/chat?new=1`);
  await page.getByLabel("Message").fill(`call update_media ${JSON.stringify({ id: made.image, alt })}`);
  await page.getByRole("button", { name: "Send" }).click();
  const card = page.locator('[data-testid="tool-card"][data-state="approval"]').last();
  // Two items on the card: the attachment, and the post whose image block shows it, with the alt text in words.
  await expect(card.getByTestId("change-item")).toHaveCount(2);
  await expect(card.getByTestId("change-item").nth(0)).toContainText(`Change media “Sourdough ${tag}”`);
  await expect(card.getByTestId("change-item").nth(1)).toContainText(`Our bakery ${tag}`);
  await expect(card.getByTestId("change-item").nth(1)).toContainText(`[image: “${alt}”]`);
  await expect(card).toContainText(`media item ${made.image}`);
  await checkState(page, "alt-text-approval");
  expect(await imgTag()).toContain('alt=""'); // nothing written before the click

  await card
    .getByRole("button", { name: /^Approve/ })
    .first()
    .click();
  const done = page.locator('[data-testid="tool-card"][data-state="done"]').last();
  await expect(done.getByTestId("verification")).toHaveAttribute("data-status", "verified", {
    timeout: scaled(90_000),
  });
  expect(await imgTag()).toContain(`alt="${alt}"`);
  expect(
    await php<string>("echo json_encode(get_post_meta((int) $args, '_wp_attachment_image_alt', true));", made.image),
  ).toBe(alt);

  // Undo puts both back: the attachment's alt text and the post's image block.
  await page.goto(`${appUrl}/sites/${siteId}/changes/history`);
  const set = page.getByTestId("change-set").first();
  await set.getByRole("button", { name: "Undo" }).click();
  await expect(set).toHaveAttribute("data-status", "undone");
  expect(await imgTag()).toContain('alt=""');
  expect(
    await php<string>("echo json_encode(get_post_meta((int) $args, '_wp_attachment_image_alt', true));", made.image),
  ).toBe("");
});
