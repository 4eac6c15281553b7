import { describe, expect, it } from "vitest";
import { expectationFor } from "./expectations";
import { pageText } from "./page-text";

const page = (status: string, title: string, content: string) => ({ status, title, content, password: "" });
const para = (html: string) => `<!-- wp:paragraph --><p>${html}</p><!-- /wp:paragraph -->`;

describe("what a visitor should see", () => {
  it("expects the new link address in the page source when only a link changed", () => {
    const before = page("publish", "Members", para('Members: <a href="https://example.com/login">Sign in</a>.'));
    const after = page("publish", "Members", para('Members: <a href="https://evil.example/login">Sign in</a>.'));
    const expectation = expectationFor({ ref: "post:4", kind: "page", title: "Members", from: before, to: after });
    expect(expectation?.sourcePresent).toEqual(["https://evil.example/login"]);
    expect(expectation?.absent).toEqual([]); // the text is the same on both sides
  });

  it("expects an image's new alt text in the page source when only its alt text changed", () => {
    const image = (alt: string) =>
      `<!-- wp:image {"id":5} --><figure class="wp-block-image"><img src="https://shop.example/bread.jpg" alt="${alt}" class="wp-image-5"/></figure><!-- /wp:image -->`;
    const expectation = expectationFor({
      ref: "post:9",
      kind: "post",
      title: "Our bakery",
      from: page("publish", "Our bakery", image("")),
      to: page("publish", "Our bakery", image("A sourdough loaf on Ana&#8217;s board")),
    });
    expect(expectation?.sourcePresent).toEqual(['alt="A sourdough loaf on Ana\'s board"']);
  });

  it("does not expect an old title to be gone when the new title contains it", () => {
    const expectation = expectationFor({
      ref: "post:4",
      kind: "page",
      title: "About us",
      from: page("publish", "About", para("x")),
      to: page("publish", "About us", para("x")),
    });
    expect(expectation).toMatchObject({ present: ["About us"], absent: [] });
  });

  it("never requires an earlier title to be gone: a menu may list another page that has it", () => {
    const expectation = expectationFor({
      ref: "post:4",
      kind: "page",
      title: "Opening times",
      from: page("publish", "Opening hours", para("x")),
      to: page("publish", "Opening times", para("x")),
    });
    expect(expectation).toMatchObject({ present: ["Opening times"], absent: [], earlier: ["Opening hours"] });
  });

  it("expects a trashed page to be gone and ignores drafts", () => {
    const published = page("publish", "Old", para("Gone soon"));
    expect(
      expectationFor({
        ref: "post:4",
        kind: "page",
        title: "Old",
        from: published,
        to: { ...published, status: "trash" },
      }),
    ).toMatchObject({ gone: true, page: "item" });
    expect(
      expectationFor({
        ref: "post:5",
        kind: "page",
        title: "D",
        from: page("draft", "D", ""),
        to: page("draft", "E", ""),
      }),
    ).toBeNull();
  });

  it("looks at the home page for the site title and for added CSS values", () => {
    expect(
      expectationFor({
        ref: "option:blogname",
        kind: "setting",
        title: "Site title",
        from: { value: "A" },
        to: { value: "Bakery & Co" },
      }),
    ).toMatchObject({ page: "home", present: ["Bakery & Co"] });
    expect(
      expectationFor({
        ref: "custom_css:twentytwentythree",
        kind: "custom_css",
        title: "css",
        from: { css: "a{color:red}" },
        to: { css: "a{color:red} h1 { color: #123456; }" },
      })?.sourcePresent,
    ).toEqual(["#123456"]);
  });

  it("looks for nothing in a page's source for Elementor's kit, whose colours live in Elementor's CSS files", () => {
    expect(
      expectationFor({
        ref: "elementor_kit:active",
        kind: "global_styles",
        title: "Elementor global colours and fonts",
        from: { colors: { primary: "#6EC1E4" } },
        to: { colors: { primary: "#c0ffee" } },
      }),
    ).toBeNull();
  });

  it("reads text as a visitor does: entities, curly quotes and dashes folded", () => {
    expect(pageText("<p>It&#8217;s 9&ndash;5 &amp; more&hellip;</p><script>var x = 1;</script>")).toBe(
      "It's 9-5 & more...",
    );
  });
});
