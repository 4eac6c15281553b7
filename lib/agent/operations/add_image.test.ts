import { describe, expect, it } from "vitest";
import { parseBlocks } from "../blocks";
import { mediaBlock, mediaSource } from "./add_image";

const photo = {
  id: 7,
  url: "https://shop.example/wp-content/uploads/front.jpg",
  mime: "image/jpeg",
  name: "front.jpg",
};

describe("the block add_image writes", () => {
  it("is one image block naming the attachment, with alt text and caption escaped", () => {
    const markup = mediaBlock({ ...photo, alt: 'Tom & Jerry\'s "shop" <b>' }, "Open <daily> & late");
    const [block] = parseBlocks(markup);
    expect(parseBlocks(markup).filter((b) => b.name !== null)).toHaveLength(1);
    expect(block?.name).toBe("core/image");
    expect(markup).toContain('alt="Tom &amp; Jerry\'s &quot;shop&quot; &lt;b&gt;"');
    expect(markup).toContain('class="wp-image-7" />');
    expect(markup).toContain('<figcaption class="wp-element-caption">Open &lt;daily&gt; &amp; late</figcaption>');
    expect(markup).toContain('{"id":7,"sizeSlug":"full","linkDestination":"none"}');
  });

  it("is a file block with a link for a PDF", () => {
    const markup = mediaBlock({ ...photo, mime: "application/pdf", name: "menu <2026>.pdf", alt: "" });
    expect(parseBlocks(markup)[0]?.name).toBe("core/file");
    expect(markup).toContain(">menu &lt;2026&gt;.pdf</a>");
  });

  it("reads upload:<id> as the owner's attachment and anything else as an address", () => {
    const id = "0f8fad5b-d9cb-469f-a165-70867728950e";
    expect(mediaSource(`upload:${id}`)).toEqual({ uploadId: id });
    expect(mediaSource("https://example.com/a.png")).toEqual({ url: "https://example.com/a.png" });
  });
});
