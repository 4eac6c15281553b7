import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BlockEditError, blockSource, insertBlock, outline, parseBlocks, replaceBlock } from "./blocks";

const page = [
  '<!-- wp:heading {"level":1} --><h1>Welcome</h1><!-- /wp:heading -->',
  "",
  "<!-- wp:columns -->",
  '<div class="wp-block-columns"><!-- wp:column --><div class="wp-block-column"><!-- wp:paragraph --><p>Left</p><!-- /wp:paragraph --></div><!-- /wp:column -->',
  '<!-- wp:column --><div class="wp-block-column"><!-- wp:image {"id":7} /--></div><!-- /wp:column --></div>',
  "<!-- /wp:columns -->",
  "",
  "<p>Classic HTML left by an old editor</p>",
  "",
  // WordPress escapes "-->" inside attributes, as serialize_block_attributes() does.
  '<!-- wp:acme/pricing-table {"plans":[{"name":"Pro","note":"\\u003c9 \\u002d\\u002d\\u003e"}]} /-->',
].join("\n");

describe("the block outline", () => {
  it("lists every block with a nested position, its name and a text preview", () => {
    expect(outline(page)).toEqual([
      { position: "1", block: "core/heading", preview: "Welcome", attrs: { level: 1 } },
      { position: "2", block: "core/columns", preview: "Left" },
      { position: "2.1", block: "core/column", preview: "Left" },
      { position: "2.1.1", block: "core/paragraph", preview: "Left" },
      { position: "2.2", block: "core/column", preview: "" },
      { position: "2.2.1", block: "core/image", preview: "", attrs: { id: 7 } },
      { position: "3", block: "core/freeform", preview: "Classic HTML left by an old editor" },
      { position: "4", block: "acme/pricing-table", preview: "", attrs: { plans: [{ name: "Pro", note: "<9 -->" }] } },
    ]);
  });

  it("reads a page without any block comments as one classic block", () => {
    expect(outline("<p>Just <b>HTML</b></p>")).toEqual([
      { position: "1", block: "core/freeform", preview: "Just HTML" },
    ]);
  });

  it("treats a closing comment without an opener as text and closes a block left open at the end", () => {
    const blocks = parseBlocks("<!-- /wp:paragraph --><!-- wp:group --><p>unclosed");
    expect(blocks.map((b) => [b.name, b.closed])).toEqual([
      [null, true],
      ["core/group", false],
    ]);
  });
});

describe("editing one block", () => {
  it("replaces exactly the block at a nested position and keeps every other byte", () => {
    const next = replaceBlock(page, "2.1.1", "<!-- wp:paragraph --><p>Right</p><!-- /wp:paragraph -->");
    expect(next).toBe(page.replace("<p>Left</p>", "<p>Right</p>"));
  });

  it("keeps page-builder shortcodes and unknown blocks intact when replacing a neighbour", () => {
    const builder =
      "[vc_row][vc_column][vc_column_text]Hi[/vc_column_text][/vc_column][/vc_row]\n\n<!-- wp:paragraph --><p>x</p><!-- /wp:paragraph -->";
    const next = replaceBlock(builder, "2", "<!-- wp:paragraph --><p>y</p><!-- /wp:paragraph -->");
    expect(next.startsWith("[vc_row][vc_column][vc_column_text]Hi[/vc_column_text][/vc_column][/vc_row]\n\n")).toBe(
      true,
    );
    expect(next.endsWith("<p>y</p><!-- /wp:paragraph -->")).toBe(true);
  });

  it("inserts before, after, and at the end", () => {
    const para = "<!-- wp:paragraph --><p>New</p><!-- /wp:paragraph -->";
    const before = insertBlock(page, "1", "before", para);
    expect(outline(before)[0]).toMatchObject({ position: "1", block: "core/paragraph", preview: "New" });
    const after = insertBlock(page, "2.1", "after", para);
    expect(outline(after).find((e) => e.position === "2.2")).toMatchObject({ block: "core/paragraph", preview: "New" });
    const end = insertBlock(page, "end", "after", para);
    expect(outline(end).at(-1)).toMatchObject({ position: "5", preview: "New" });
    expect(insertBlock("", "end", "after", para)).toBe(para);
  });

  it("refuses a position that does not exist and markup that would unbalance the page", () => {
    expect(() => replaceBlock(page, "9", "<p>x</p>")).toThrow(BlockEditError);
    expect(() => replaceBlock(page, "0", "<p>x</p>")).toThrow(/no block at position 0/);
    expect(() => replaceBlock(page, "1", "<!-- wp:group --><p>x</p>")).toThrow(/without closing/);
    expect(() => replaceBlock(page, "1", "<p>x</p><!-- /wp:group -->")).toThrow(/without opening/);
    expect(() => insertBlock(page, "1", "after", "   ")).toThrow(/empty/);
  });

  it("shows the exact markup of one block", () => {
    expect(blockSource(page, "2.2.1")).toBe('<!-- wp:image {"id":7} /-->');
  });

  it("never loses or reorders bytes: replacing a block with its own markup gives the page back", () => {
    const block = fc.constantFrom(
      "<!-- wp:paragraph --><p>a</p><!-- /wp:paragraph -->",
      '<!-- wp:image {"id":1} /-->',
      "<!-- wp:group --><div><!-- wp:paragraph --><p>in</p><!-- /wp:paragraph --></div><!-- /wp:group -->",
      "[et_pb_section]x[/et_pb_section]",
      "<p>classic</p>",
      "\n\n",
    );
    fc.assert(
      fc.property(fc.array(block, { maxLength: 8 }), (pieces) => {
        const source = pieces.join("");
        for (const entry of outline(source)) {
          expect(replaceBlock(source, entry.position, blockSource(source, entry.position)!)).toBe(source);
        }
      }),
    );
  });
});

describe("removeBlock", () => {
  it("removes exactly the block at an outline position, freeform HTML counted as the outline counts it", async () => {
    const { removeBlock, outline } = await import("./blocks");
    const source =
      "<p>classic</p>\n<!-- wp:paragraph --><p>a</p><!-- /wp:paragraph -->\n<!-- wp:group --><div><!-- wp:paragraph --><p>b</p><!-- /wp:paragraph --></div><!-- /wp:group -->";
    expect(outline(source).map((e) => e.position)).toEqual(["1", "2", "3", "3.1"]);
    expect(removeBlock(source, "2")).toBe(source.replace("\n<!-- wp:paragraph --><p>a</p><!-- /wp:paragraph -->", ""));
    expect(removeBlock(source, "3.1")).toBe(source.replace("<!-- wp:paragraph --><p>b</p><!-- /wp:paragraph -->", ""));
    expect(() => removeBlock(source, "4")).toThrow(/no block at position 4/);
    // Blocks inserted by insertBlock come out with the blank line that was added for them.
    const { insertBlock } = await import("./blocks");
    const markup = "<!-- wp:separator /-->";
    expect(removeBlock(insertBlock(source, "2", "after", markup), "3")).toBe(source);
    const doc = "<!-- wp:paragraph --><p>a</p><!-- /wp:paragraph -->";
    expect(removeBlock(insertBlock(doc, "1", "before", markup), "1")).toBe(doc);
  });
});
