import { z } from "zod";
import { appliedVariation, effectivePresets, PRESETS, type PresetKind, variationBrief } from "../global-styles";
import { readGlobalStyles } from "./global-styles-site";
import { defineOperation } from "./operation";

/** Each preset's slug, name and value: what the model needs to pick one, nothing more. */
const brief = (kind: PresetKind, presets: ReturnType<typeof effectivePresets>) =>
  presets.map((preset) => ({ slug: preset.slug, name: preset.name, value: preset[PRESETS[kind].value] }));

export default defineOperation({
  name: "read_global_styles",
  label: "Read the site's styles",
  description:
    "Read the site's global styles: colour palette, font sizes and families, spacing sizes, the site-wide styles (theme's and owner's changes), custom CSS and the theme's style variations.",
  input: z.object({}),
  scope: "content:read",
  risk: "read",
  capabilities: ["edit_theme_options"],
  theme: "block",
  async run(client) {
    const styles = await readGlobalStyles(client);
    const presets = Object.fromEntries(
      (Object.keys(PRESETS) as PresetKind[]).map((kind) => [
        kind,
        brief(kind, effectivePresets(styles.theme.settings, styles.user.settings, kind)),
      ]),
    );
    const { blocks: _blocks, ...themeStyles } = styles.theme.styles;
    const { css, ...userStyles } = styles.user.styles;
    return {
      summary: "Read the site's global styles.",
      target: { type: "site" },
      data: {
        ...presets,
        themeStyles,
        ownerStyles: userStyles,
        variations: styles.variations.map(variationBrief),
        variation: appliedVariation(styles.user, styles.variations),
        css: styles.cssInStyles ? (typeof css === "string" ? css : "") : (styles.additionalCss?.state?.css ?? ""),
      },
    };
  },
});
