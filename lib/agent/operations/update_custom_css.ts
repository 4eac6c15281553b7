import { z } from "zod";
import { planValueUpdate } from "@/lib/changes/plan";
import { readItem } from "@/lib/sites/items";
import { defineOperation, OperationError } from "./operation";

type Css = { css: string; stylesheet: string };

/** The plugin refuses longer CSS (`Sitewright_REST_Custom_CSS_Controller::MAX_BYTES`). */
export const MAX_CUSTOM_CSS_BYTES = 65_536;

/**
 * WordPress 6.1 has no core REST route for the Customizer's Additional CSS (global styles gained `css` only in
 * 6.2), so this goes through the plugin (its items route, `custom_css:<theme>`) and is offered only when the plugin
 * reports the `custom_css` feature.
 */
export default defineOperation({
  name: "update_custom_css",
  label: "Change the custom CSS",
  description:
    "Change the site's additional CSS (the Customizer's \"Additional CSS\"). `append` (default) adds rules at the end; `replace` swaps all of it. Keep rules specific so they do not restyle unrelated parts of the site. Plain CSS only: HTML tags are refused. Waits for the owner's approval in the chat.",
  input: z.object({
    css: z.string().min(1).max(50_000).describe("The CSS rules"),
    mode: z.enum(["append", "replace"]).default("append"),
  }),
  scope: "design:write",
  risk: "write",
  capabilities: ["edit_theme_options"],
  pluginFeature: "custom_css",
  theme: "classic",
  async plan(client, { css, mode }) {
    const { stylesheet } = (await client.get<Css>("/sitewright/v1/custom-css")).data;
    const item = await readItem(client, `custom_css:${stylesheet}`);
    const current = typeof item.state?.css === "string" ? item.state.css : "";
    const next = mode === "append" && current.trim() !== "" ? `${current.replace(/\s+$/, "")}\n\n${css}` : css;
    if (Buffer.byteLength(next, "utf8") > MAX_CUSTOM_CSS_BYTES) {
      throw new OperationError(
        `The site's custom CSS would exceed ${MAX_CUSTOM_CSS_BYTES} bytes; replace it with a shorter version instead.`,
        "css_too_long",
      );
    }
    const summary = mode === "append" ? "Added rules to the site's custom CSS." : "Replaced the site's custom CSS.";
    const planned = planValueUpdate(item, { css: next }, summary, "Additional CSS");
    if (Object.keys(planned.change.fields ?? {}).length === 0)
      throw new OperationError("The site's custom CSS is already exactly this.", "no_change");
    return { summary, target: { type: "site" }, items: [planned] };
  },
});
