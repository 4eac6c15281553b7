import { describe, expect, it } from "vitest";
import { effectivePresets, mergeStyles, PresetError, type StyleVariation, withPresetValues } from "./global-styles";

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

describe("fonts and style variations", () => {
  const fontTheme = {
    ...theme,
    typography: {
      fontFamilies: {
        theme: [
          { slug: "system-font", name: "System Font", fontFamily: "-apple-system, sans-serif" },
          { slug: "inter", name: "Inter", fontFamily: '"Inter", sans-serif' },
        ],
      },
    },
  };
  const pitch: StyleVariation = {
    title: "Pitch",
    settings: { color: { palette: { theme: [{ slug: "base", name: "Base", color: "#202124" }] } } },
    styles: { typography: { fontFamily: "var(--wp--preset--font-family--inter)" } },
  };

  it("sets the body and headings font to a family of the site, and refuses one it lacks", async () => {
    const { withFontFamilies } = await import("./global-styles");
    const styles = withFontFamilies(
      fontTheme,
      {},
      { color: { text: "#111" } },
      { body: "inter", headings: "system-font" },
    );
    expect(styles).toEqual({
      color: { text: "#111" },
      typography: { fontFamily: "var(--wp--preset--font-family--inter)" },
      elements: { heading: { typography: { fontFamily: "var(--wp--preset--font-family--system-font)" } } },
    });
    expect(() => withFontFamilies(fontTheme, {}, {}, { body: "comic-sans" })).toThrow(/system-font, inter/);
  });

  it("applies a variation as the Site Editor does, keeping only the owner's CSS, and names it and its fonts on the card", async () => {
    const { appliedVariation, describeStylesChange, variationBrief, withVariation } = await import("./global-styles");
    expect(variationBrief(pitch)).toEqual({
      title: "Pitch",
      colors: { base: "#202124" },
      fonts: [],
      bodyFont: "inter",
    });
    const before = { settings: {}, styles: { color: { text: "#111" }, css: "a{}" } };
    const after = withVariation(before, pitch);
    expect(after).toEqual({ settings: pitch.settings, styles: { ...pitch.styles, css: "a{}" } });
    expect(appliedVariation(after, [pitch])).toBe("Pitch");
    expect(describeStylesChange(fontTheme, before, after, { after: "Pitch" })).toEqual({
      // Every value written is on the card: the variation's own per-block styles are listed, not counted.
      before: { "Style variation": null, "Colour Base": "#ffffff", "Body font": null, "Style color › text": "#111" },
      after: {
        "Style variation": "Pitch",
        "Colour Base": "#202124",
        "Body font": "Inter",
        "Style color › text": null,
      },
    });
  });
});
