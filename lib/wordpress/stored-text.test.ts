import { describe, expect, it } from "vitest";
import { asStoredMarkup, asStoredTitle } from "./stored-text";

describe("text spelled as WordPress stores it", () => {
  it("turns a bare ampersand into &amp; and leaves entities alone", () => {
    expect(asStoredMarkup('<p>Q&A &amp; more &#8217; &#x2019; &copy; <a href="/?a=1&b=2">x</a></p>')).toBe(
      '<p>Q&amp;A &amp; more &#8217; &#x2019; &copy; <a href="/?a=1&amp;b=2">x</a></p>',
    );
  });

  it("trims titles", () => {
    expect(asStoredTitle("  Tom & Jerry ")).toBe("Tom &amp; Jerry");
  });
});
