import { z } from "zod";
import { type PlannedItem, planValueUpdate } from "@/lib/changes/plan";
import { describeStylesChange, mergeStyles, PresetError, withPresetValues } from "../global-styles";
import { readGlobalStyles } from "./global-styles-site";
import { defineOperation, OperationError } from "./operation";

const slug = z.string().regex(/^[a-z0-9-]{1,60}$/);
// A CSS value for a preset: no declarations, blocks or markup can ride along.
const value = z.string().regex(/^[^;{}<>]{1,200}$/);

export default defineOperation({
  name: "update_global_styles",
  label: "Change the site's styles",
  description:
    'Change the global styles, merged into the current ones: `colors`/`fontSizes` set preset values by slug; `styles` is theme.json styles (e.g. {"spacing":{"blockGap":"2rem"}}; null removes a key); `css` replaces the custom CSS.',
  input: z
    .object({
      colors: z.record(slug, value).optional(),
      fontSizes: z.record(slug, value).optional(),
      styles: z.record(z.string(), z.unknown()).optional(),
      css: z.string().max(50_000).optional(),
    })
    .refine((input) => Object.values(input).some((v) => v !== undefined), "Give something to change."),
  scope: "design:write",
  risk: "write",
  capabilities: ["edit_theme_options"],
  theme: "block",
  async plan(client, { colors, fontSizes, styles, css }) {
    const current = await readGlobalStyles(client);
    let settings = current.user.settings;
    let userStyles = current.user.styles;
    const what: string[] = [];
    try {
      if (colors && Object.keys(colors).length > 0) {
        settings = withPresetValues(current.theme.settings, settings, "colors", colors);
        what.push(`colours ${Object.keys(colors).join(", ")}`);
      }
      if (fontSizes && Object.keys(fontSizes).length > 0) {
        settings = withPresetValues(current.theme.settings, settings, "fontSizes", fontSizes);
        what.push(`font sizes ${Object.keys(fontSizes).join(", ")}`);
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
    const items: PlannedItem[] = [];
    if (css !== undefined && current.cssInStyles) {
      userStyles = mergeStyles(userStyles, { css: css === "" ? null : css });
      what.push("custom CSS");
    }
    const summary = `Changed the global styles (${what.join("; ") || "custom CSS"}).`;
    const styleItem = planValueUpdate(current.item, { settings, styles: userStyles }, summary, "Global styles");
    // The card and the model read each colour, size or style that changes, not two copies of whole objects.
    Object.assign(
      styleItem,
      describeStylesChange(current.theme.settings, current.user, { settings, styles: userStyles }),
    );
    if (Object.keys(styleItem.change.fields ?? {}).length > 0) items.push(styleItem);
    if (css !== undefined && !current.cssInStyles) {
      // WordPress before 6.2 keeps no CSS in global styles; its Additional CSS is printed on block themes too.
      if (!current.additionalCss?.exists) {
        throw new OperationError("This site cannot take custom CSS (the plugin does not offer it).", "css_unavailable");
      }
      const cssItem = planValueUpdate(
        current.additionalCss,
        { css },
        "Replaced the site's custom CSS.",
        "Additional CSS",
      );
      if (Object.keys(cssItem.change.fields ?? {}).length > 0) items.push(cssItem);
    }
    if (items.length === 0) throw new OperationError("The global styles already are exactly like this.", "no_change");
    return { summary, target: { type: "site" }, items };
  },
});
