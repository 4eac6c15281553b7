/**
 * A photo attached in the chat, in Chromium against the built app and the real WordPress: dropped or picked, it
 * shows as a chip with its thumbnail; the assistant adds it to a published page; the approval card shows the image
 * itself and where it goes; nothing shows on the site until Approve, and then the public page shows it.
 */
import { expect, test } from "@playwright/test";
import { jpegWithMetadata } from "../lib/media/testing";
import { ALL_SCOPES, connectSite, frontEnd, signUp, useAppDatabase } from "./support/owner";
import { e2eState } from "./support/state";

useAppDatabase();

test("attaches a photo, approves its place on a published page, and the page shows it", async ({ page }) => {
  const { appUrl } = e2eState();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  const { siteId, admin } = await connectSite(await signUp(page, "media"), ALL_SCOPES);
  const { data: shop } = await admin.post<{ id: number; link: string }>("/wp/v2/pages", {
    title: "Our shop",
    status: "publish",
    content: "<!-- wp:paragraph --><p>Welcome to the shop.</p><!-- /wp:paragraph -->",
  });
  const photo = await jpegWithMetadata({ width: 320, height: 200 });

  await page.goto(`${appUrl}/sites/${siteId}/chat`);
  await expect(page.getByTestId("chat")).toHaveAttribute("data-ready", "true");

  // Dropped on the message box: a chip appears; the owner removes it again.
  await page.getByLabel("Message").evaluate(
    (box, bytes) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([new Uint8Array(bytes)], "dropped.jpg", { type: "image/jpeg" }));
      box
        .closest("form")!
        .dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true }));
    },
    [...photo],
  );
  const dropped = page.getByTestId("attachment").filter({ hasText: "dropped.jpg" });
  await expect(dropped).toHaveAttribute("data-state", "ready");
  await page.getByRole("button", { name: "Remove dropped.jpg" }).click();
  await expect(dropped).toHaveCount(0);

  // Picked with the file picker: the chip shows the cleaned file's thumbnail.
  await page.getByTestId("attach-input").setInputFiles({ name: "front.jpg", mimeType: "image/jpeg", buffer: photo });
  const chip = page.getByTestId("attachment").filter({ hasText: "front.jpg" });
  await expect(chip).toHaveAttribute("data-state", "ready");
  await expect.poll(() => chip.locator("img").evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);

  await page.getByLabel("Message").fill(`Add the attached photo to page ${shop.id}`);
  await page.getByRole("button", { name: "Send" }).click();
  const approval = page.locator('[data-testid="tool-card"][data-state="approval"]');
  await expect(approval).toBeVisible();
  const preview = approval.getByTestId("media-preview");
  await expect(preview).toHaveAttribute("alt", "The shop front");
  await expect.poll(() => preview.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(320);
  await expect(approval.getByTestId("block-diff")).toContainText("Block 2 (image) — new");
  await expect(approval).toContainText("Our shop");
  await page.screenshot({ path: ".cache/screens/media-approval.png", fullPage: true });

  // The attachment is on the site already, but nothing shows it until the owner approves.
  const shown = /src="[^"]*\/wp-content\/uploads\/[^"]*front[^"]*\.jpg"/;
  expect(await frontEnd(shop.link)).not.toMatch(shown);

  await approval.getByRole("button", { name: /^Approve/ }).click();
  await expect(page.getByText(`The photo on page ${shop.id} is handled.`)).toBeVisible();
  const html = await frontEnd(shop.link);
  expect(html).toMatch(shown);
  expect(html).toContain('alt="The shop front"');
  // The sent message keeps its attachment chip after a reload.
  await page.reload();
  await expect(page.locator('[data-role="user"]').getByTestId("attachment")).toContainText("front.jpg");
  expect(errors).toEqual([]);
});
