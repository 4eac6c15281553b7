import { z } from "zod";
import { type PlannedItem, planValueUpdate } from "@/lib/changes/plan";
import {
  appliedVariation,
  describeStylesChange,
  mergeStyles,
  PresetError,
  withFontFamilies,
  withPresetValues,
  withVariation,
} from "../global-styles";
import { type GlobalStyles, readGlobalStyles } from "./global-styles-site";
import { defineOperation, OperationError } from "./operation";

const slug = z.string().regex(/^[a-z0-9-]{1,60}$/);
// A CSS value for a preset: no declarations, blocks or markup can ride along.
const value = z.string().regex(/^[^;{}<>]{1,200}$/);

const input = z
  .object({
    variation: z.string().min(1).max(100).optional(),
    colors: z.record(slug, value).optional(),
    fontSizes: z.record(slug, value).optional(),
    fontFamily: z.object({ body: slug.optional(), headings: slug.optional() }).optional(),
    styles: z.record(z.string(), z.unknown()).optional(),
    css: z.string().max(50_000).optional(),
  })
  .refine((input) => Object.values(input).some((v) => v !== undefined), "Give something to change.");
type Input = z.infer<typeof input>;

/** The owner's settings and styles after the change (variation first, then presets, fonts and styles on top). */
function nextStyles(current: GlobalStyles, { variation, colors, fontSizes, fontFamily, styles }: Input) {
  let { settings, styles: userStyles } = current.user;
  const what: string[] = [];
  let applied: string | undefined;
  if (variation !== undefined) {
    const chosen = current.variations.find((v) => v.title.toLowerCase() === variation.toLowerCase());
    if (!chosen) {
      const known = current.variations.map((v) => v.title).join(", ") || "none";
      throw new OperationError(`The theme has no style variation "${variation}" (it has: ${known}).`, "unknown_preset");
    }
    ({ settings, styles: userStyles } = withVariation(current.user, chosen));
    applied = chosen.title;
    what.push(`style variation ${chosen.title}`);
  }
  try {
    for (const [kind, values, words] of [
      ["colors", colors, "colours"],
      ["fontSizes", fontSizes, "font sizes"],
    ] as const) {
      if (!values || Object.keys(values).length === 0) continue;
      settings = withPresetValues(current.theme.settings, settings, kind, values);
      what.push(`${words} ${Object.keys(values).join(", ")}`);
    }
    if (fontFamily && (fontFamily.body || fontFamily.headings)) {
      userStyles = withFontFamilies(current.theme.settings, settings, userStyles, fontFamily);
      what.push("fonts");
    }
  } catch (error) {
    if (error instanceof PresetError) throw new OperationError(error.message, "unknown_preset");
    throw error;
  }
  if (styles) {
    const { css: _ignored, ...rest } = styles;
    userStyles = mergeStyles(userStyles, rest);
    what.push("styles");
  }
  return { settings, styles: userStyles, what, applied };
}

/** WordPress before 6.2 keeps no CSS in global styles; its Additional CSS is printed on block themes too. */
function additionalCssItem(current: GlobalStyles, css: string): PlannedItem[] {
  if (!current.additionalCss?.exists) {
    throw new OperationError("This site cannot take custom CSS (the plugin does not offer it).", "css_unavailable");
  }
  const item = planValueUpdate(current.additionalCss, { css }, "Replaced the site's custom CSS.", "Additional CSS");
  return Object.keys(item.change.fields ?? {}).length > 0 ? [item] : [];
}

export default defineOperation({
  name: "update_global_styles",
  label: "Change the site's styles",
  description:
    'Change the global styles, merged into the current ones: `variation` applies a style variation by title (first); `colors`/`fontSizes` set preset values by slug; `fontFamily` sets body/headings to a font family slug; `styles` is theme.json styles (e.g. {"spacing":{"blockGap":"2rem"}}; null removes a key); `css` replaces the custom CSS.',
  input,
  scope: "design:write",
  risk: "write",
  capabilities: ["edit_theme_options"],
  theme: "block",
  async plan(client, change) {
    const current = await readGlobalStyles(client);
    const next = nextStyles(current, change);
    const { css } = change;
    if (css !== undefined && current.cssInStyles) {
      next.styles = mergeStyles(next.styles, { css: css === "" ? null : css });
      next.what.push("custom CSS");
    }
    const summary = `Changed the global styles (${next.what.join("; ") || "custom CSS"}).`;
    const after = { settings: next.settings, styles: next.styles };
    const styleItem = planValueUpdate(current.item, after, summary, "Global styles");
    // The card and the model read each colour, font or style that changes, not two copies of whole objects.
    const named = next.applied
      ? { before: appliedVariation(current.user, current.variations), after: next.applied }
      : undefined;
    Object.assign(styleItem, describeStylesChange(current.theme.settings, current.user, after, named));
    const items: PlannedItem[] = [];
    if (Object.keys(styleItem.change.fields ?? {}).length > 0) items.push(styleItem);
    if (css !== undefined && !current.cssInStyles) items.push(...additionalCssItem(current, css));
    if (items.length === 0) throw new OperationError("The global styles already are exactly like this.", "no_change");
    return { summary, target: { type: "site" }, items };
  },
});
