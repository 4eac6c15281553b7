import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { describeChange, markupChanges, NOTABLE_ATTRIBUTES } from "./markup-diff";

const para = (html: string) => `<!-- wp:paragraph --><p>${html}</p><!-- /wp:paragraph -->`;
const lines = (before: string, after: string) => markupChanges(before, after).map(describeChange);

describe("what a markup change does besides its words", () => {
  it("shows both addresses of a link whose words stayed the same", () => {
    expect(
      lines(
        para('Members: <a href="https://example.com/login">Sign in</a> to see your account.'),
        para('Members: <a href="https://evil.example/login">Sign in</a> to see your account.'),
      ),
    ).toEqual(["Link address: https://example.com/login → https://evil.example/login"]);
  });

  it("names an added iframe, a form's new target, a script, an event handler and new image sources", () => {
    expect(lines(para("Hi"), `${para("Hi")}<iframe src="https://maps.example.com/embed"></iframe>`)).toEqual([
      "Embedded frame added: <iframe> https://maps.example.com/embed",
    ]);
    expect(lines('<form action="https://a.example/s"></form>', '<form action="https://b.example/s"></form>')).toEqual([
      "Form sends to: https://a.example/s → https://b.example/s",
    ]);
    expect(lines(para("Hi"), para("Hi<script>steal()</script>"))).toEqual(["Script added: <script>"]);
    expect(lines(para('<a href="/x">Hi</a>'), para('<a href="/x" onclick="steal()">Hi</a>'))).toEqual([
      "Link onclick added: steal()",
    ]);
    expect(lines('<img src="a.png" srcset="a.png 1x">', '<img src="a.png" srcset="b.png 1x">')).toEqual([
      "Image image sources: a.png 1x → b.png 1x",
    ]);
  });

  it("reads block settings and shortcodes", () => {
    expect(
      lines(
        '<!-- wp:embed {"url":"https://video.example/1"} /-->',
        '<!-- wp:embed {"url":"https://video.example/2"} /-->',
      ),
    ).toEqual(["Block setting “url” of embed: https://video.example/1 → https://video.example/2"]);
    expect(lines('[gallery ids="1,2"]', '[gallery ids="1,3"]').sort()).toEqual([
      'Shortcode added: [gallery ids="1,3"]',
      'Shortcode removed: [gallery ids="1,2"]',
    ]);
  });

  it("finds nothing for the same bytes, and decodes entity spellings of the same address", () => {
    expect(markupChanges(para("x"), para("x"))).toEqual([]);
    expect(markupChanges('<a href="/?a=1&amp;b=2">x</a>', '<a href="/?a=1&#038;b=2">x</a>')).toEqual([]);
  });

  it("names every changed notable attribute, old and new value (property)", () => {
    const value = fc.stringMatching(/^[a-z0-9:/._-]{1,20}$/);
    fc.assert(
      fc.property(
        fc.constantFrom(...NOTABLE_ATTRIBUTES),
        value,
        value,
        fc.constantFrom("a", "img", "iframe", "form", "source"),
        fc.array(fc.constantFrom("Hello", "world", "<b>bold</b>", "<em>x</em>"), { maxLength: 3 }),
        (name, was, now, element, around) => {
          fc.pre(was !== now);
          const text = around.join(" ");
          const before = `<p>${text}<${element} ${name}="${was}">label</${element}>${text}</p>`;
          const after = `<p>${text}<${element} ${name}="${now}">label</${element}>${text}</p>`;
          const changes = markupChanges(before, after);
          expect(changes).toContainEqual(expect.objectContaining({ kind: "attribute", name, before: was, after: now }));
        },
      ),
      { numRuns: 300 },
    );
  });
});
