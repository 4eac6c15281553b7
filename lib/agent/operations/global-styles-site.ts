/** Reads a block theme's global styles: the theme's own (core's REST route) and the user's (the plugin's item). */
import { readItem, type SiteItem } from "@/lib/sites/items";
import type { SiteClient } from "@/lib/sites/types";
import { asObject, type StyleVariation } from "../global-styles";
import { activeBlockTheme, readDesignItem, type DesignItem } from "./design";

export type GlobalStyles = {
  stylesheet: string;
  item: DesignItem;
  theme: { settings: Record<string, unknown>; styles: Record<string, unknown> };
  user: { settings: Record<string, unknown>; styles: Record<string, unknown> };
  /** Whether this WordPress keeps custom CSS inside global styles (6.2+); else it is the Customizer's Additional CSS. */
  cssInStyles: boolean;
  /** The Additional CSS item, read when the CSS lives there. */
  additionalCss?: SiteItem;
  /** The theme's style variations (the item's info; a plugin without it lists none). */
  variations: StyleVariation[];
};

const variationsOf = (info: unknown): StyleVariation[] => {
  const list = (info as { variations?: unknown } | undefined)?.variations;
  return (Array.isArray(list) ? list : [])
    .filter((v): v is { title: string } => typeof v?.title === "string" && v.title !== "")
    .map((v: Record<string, unknown>) => ({
      title: String(v.title),
      settings: asObject(v.settings),
      styles: asObject(v.styles),
    }));
};

export async function readGlobalStyles(client: SiteClient): Promise<GlobalStyles> {
  const stylesheet = await activeBlockTheme(client);
  const [item, theme] = await Promise.all([
    readDesignItem(client, `global_styles:${stylesheet}`, "The site did not return its global styles."),
    client.get<{ settings?: unknown; styles?: unknown }>(
      `/wp/v2/global-styles/themes/${encodeURIComponent(stylesheet)}`,
    ),
  ]);
  const cssInStyles = item.state.css_supported === true;
  const additionalCss = cssInStyles
    ? undefined
    : await readItem(client, `custom_css:${stylesheet}`).catch(() => undefined);
  return {
    stylesheet,
    item,
    theme: { settings: asObject(theme.data?.settings), styles: asObject(theme.data?.styles) },
    user: { settings: asObject(item.state.settings), styles: asObject(item.state.styles) },
    cssInStyles,
    additionalCss,
    variations: variationsOf(item.info),
  };
}
