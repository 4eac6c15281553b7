import { describe, expect, it } from "vitest";
import { effectivePresets, mergeStyles, PresetError, withPresetValues } from "./global-styles";

// As core's /wp/v2/global-styles/themes/<theme> answers: presets keyed by origin.
const theme = {
  color: {
    palette: {
      default: [{ slug: "black", color: "#000000" }],
      theme: [
        { slug: "base", name: "Base", color: "#ffffff" },
        { slug: "primary", name: "Primary", color: "#9dff20" },
      ],
    },
  },
  typography: { fontSizes: { theme: [{ slug: "small", size: "1rem" }] } },
};

describe("global styles", () => {
  it("shows the theme's presets, the user's copy of them when edited, then the user's own", () => {
    expect(effectivePresets(theme, {}, "colors").map((c) => c.color)).toEqual(["#ffffff", "#9dff20"]);
    const user = {
      color: { palette: { theme: [{ slug: "base", color: "#000" }], custom: [{ slug: "sand", color: "#e0d5c0" }] } },
    };
    expect(effectivePresets(theme, user, "colors").map((c) => c.slug)).toEqual(["base", "sand"]);
  });

  it("changes a preset by slug in a user copy of the theme's palette, keeping the other settings", () => {
    const next = withPresetValues(theme, { layout: { contentSize: "640px" } }, "colors", { primary: "#c0ffee" });
    expect(next).toEqual({
      layout: { contentSize: "640px" },
      color: {
        palette: {
          theme: [
            { slug: "base", name: "Base", color: "#ffffff" },
            { slug: "primary", name: "Primary", color: "#c0ffee" },
          ],
        },
      },
    });
    expect(effectivePresets(theme, next, "colors")[1]!.color).toBe("#c0ffee");
    const sizes = withPresetValues(theme, next, "fontSizes", { small: "0.9rem" });
    expect(effectivePresets(theme, sizes, "fontSizes")).toEqual([{ slug: "small", size: "0.9rem" }]);
    expect(effectivePresets(theme, sizes, "colors")[1]!.color).toBe("#c0ffee");
  });

  it("refuses a colour the site does not have, naming those it has", () => {
    expect(() => withPresetValues(theme, {}, "colors", { accent: "#000" })).toThrow(PresetError);
    expect(() => withPresetValues(theme, {}, "colors", { accent: "#000" })).toThrow(/base, primary/);
  });

  it("merges styles deeply, replaces values and removes keys given as null", () => {
    const current = { color: { text: "#111", background: "#fff" }, spacing: { blockGap: "1rem" } };
    expect(mergeStyles(current, { color: { text: "#222" }, spacing: null, typography: { fontSize: "18px" } })).toEqual({
      color: { text: "#222", background: "#fff" },
      typography: { fontSize: "18px" },
    });
    expect(current.color.text).toBe("#111");
  });
});

describe("a global styles change in the owner's words", () => {
  it("names each colour and style that changes, with old and new values, and nothing else", async () => {
    const { describeStylesChange } = await import("./global-styles");
    const after = withPresetValues(theme, {}, "colors", { primary: "#c0ffee" });
    expect(
      describeStylesChange(
        theme,
        { settings: {}, styles: { color: { text: "#111" }, css: "a{}" } },
        { settings: after, styles: { color: { text: "#222" }, typography: { lineHeight: "1.6" }, css: "a{}" } },
      ),
    ).toEqual({
      before: { "Colour Primary": "#9dff20", "Style color › text": "#111", "Style typography › lineHeight": null },
      after: { "Colour Primary": "#c0ffee", "Style color › text": "#222", "Style typography › lineHeight": "1.6" },
    });
  });
});
