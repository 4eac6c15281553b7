import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Markdown } from "./markdown";

const render = (text: string) => renderToStaticMarkup(createElement(Markdown, { text }));

describe("the assistant's Markdown", () => {
  it("renders headings, emphasis, lists, tables and code instead of showing the marks", () => {
    const html = render(
      "## Done\n\n**Bold** and *soft*\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```\ncode\n```",
    );
    expect(html).toContain("<h2>Done</h2>");
    expect(html).toContain("<strong>Bold</strong>");
    expect(html).toContain("<em>soft</em>");
    expect(html).toContain("<li>one</li>");
    expect(html).toContain("<td>1</td>");
    expect(html).toContain("<code>code\n</code>");
    expect(html).not.toContain("**");
  });

  it("never turns HTML in a reply into elements, script tags included", () => {
    const html = render(
      'Hi <script>alert(1)</script> <img src=x onerror="alert(2)"> <b onclick="x()">b</b>\n\n<iframe src="https://evil.example"></iframe>',
    );
    expect(html).not.toMatch(/<script|<img|<iframe|onerror|onclick|<b>/i);
    expect(html).toContain("Hi");
  });

  it("drops javascript:, data: and relative links but keeps their text", () => {
    const html = render(
      "[click](javascript:alert(1)) [data](data:text/html,<script>x</script>) [rel](/admin) [JS](JaVaScRiPt:alert(1))",
    );
    expect(html).not.toMatch(/href/);
    expect(html).not.toMatch(/javascript/i);
    expect(html).toContain("click");
    expect(html).toContain("rel");
  });

  it("opens http(s) links as untrusted, in a new tab", () => {
    const html = render("[the page](https://example.com/about) and https://example.org/auto");
    expect(html).toContain(
      '<a href="https://example.com/about" target="_blank" rel="noopener noreferrer nofollow">the page</a>',
    );
    expect(html).toContain('href="https://example.org/auto"');
  });

  it("shows images as links and never loads them", () => {
    const html = render("![tracking pixel](https://tracker.example/p.gif) ![bad](javascript:alert(1))");
    expect(html).not.toContain("<img");
    expect(html).toContain(
      '<a href="https://tracker.example/p.gif" target="_blank" rel="noopener noreferrer nofollow">[Image: tracking pixel]</a>',
    );
    expect(html).toContain("[Image: bad]");
    expect(html).not.toMatch(/javascript/i);
  });
});
