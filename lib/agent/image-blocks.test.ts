/**
 * Image blocks carry their own alt text and caption: a change to an attachment's is written into the blocks that
 * show it, as the block editor saves them, and nothing else in the content moves.
 */
import { describe, expect, it } from "vitest";
import { rewriteImageBlocks } from "./image-blocks";

/** An image block as the editor saves it; `kses`: its `<img>` as WordPress's filter writes a tag (` />`). */
const image = (id: number, alt: string, caption?: string, kses = false) =>
  `<!-- wp:image {"id":${id},"sizeSlug":"large"} -->\n<figure class="wp-block-image size-large"><img src="https://shop.example/wp-content/uploads/bread.jpg" alt="${alt}" class="wp-image-${id}"${kses ? " />" : "/>"}${caption === undefined ? "" : `<figcaption class="wp-element-caption">${caption}</figcaption>`}</figure>\n<!-- /wp:image -->`;
const para = (text: string) => `<!-- wp:paragraph -->\n<p>${text}</p>\n<!-- /wp:paragraph -->`;

describe("an attachment's text in the image blocks that show it", () => {
  it("sets the alt text of this attachment's blocks only, every other byte as it was", () => {
    const content = [para("Our bakery"), image(5, ""), image(50, "Other"), para("Open daily")].join("\n\n");
    const out = rewriteImageBlocks(content, 5, { alt: "A sourdough loaf on a board" });
    expect(out).toBe(
      [
        para("Our bakery"),
        image(5, "A sourdough loaf on a board", undefined, true),
        image(50, "Other"),
        para("Open daily"),
      ].join("\n\n"),
    );
  });

  it("writes the changed tag as the site's filter would store it, adding alt where there was none", () => {
    const bare = `<!-- wp:image {"id":5} --><figure class="wp-block-image"><img src='https://shop.example/a.jpg' class=wp-image-5/></figure><!-- /wp:image -->`;
    expect(rewriteImageBlocks(bare, 5, { alt: "Rye" })).toContain(
      '<img src="https://shop.example/a.jpg" alt="Rye" class="wp-image-5" />',
    );
  });

  it("escapes the alt text for the attribute", () => {
    expect(rewriteImageBlocks(image(5, ""), 5, { alt: 'Ana\'s "best" <loaf> & jam' })).toContain(
      'alt="Ana\'s &quot;best&quot; &lt;loaf&gt; &amp; jam"',
    );
  });

  it("replaces, adds and removes the caption as the editor saves it", () => {
    expect(rewriteImageBlocks(image(5, "x", "Old"), 5, { caption: "Fresh at 7" })).toBe(image(5, "x", "Fresh at 7"));
    expect(rewriteImageBlocks(image(5, "x"), 5, { caption: "Fresh at 7" })).toBe(image(5, "x", "Fresh at 7"));
    expect(rewriteImageBlocks(image(5, "x", "Old"), 5, { caption: "" })).toBe(image(5, "x"));
  });

  it("reaches images inside a gallery, and leaves content without the image unchanged", () => {
    const gallery = `<!-- wp:gallery {"linkTo":"none"} -->\n<figure class="wp-block-gallery has-nested-images">${image(5, "")}${image(6, "")}</figure>\n<!-- /wp:gallery -->`;
    const out = rewriteImageBlocks(gallery, 6, { alt: "Rye" });
    expect(out).toBe(gallery.replace(image(6, ""), image(6, "Rye", undefined, true)));
    expect(rewriteImageBlocks(para("No images"), 5, { alt: "x" })).toBe(para("No images"));
  });
});
