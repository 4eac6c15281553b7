import { z } from "zod";
import { outline, parseBlocks } from "../blocks";
import { activeBlockTheme, readDesignItem } from "./design";
import { defineOperation } from "./operation";
import { clip } from "./wordpress";

export const partSlug = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,99}$/);

type Part = { slug: string; theme: string; source: string; area: string; title: { raw?: string } };

export default defineOperation({
  name: "read_template_part",
  label: "Read the header or footer",
  description:
    'Read a template part (e.g. "header", "footer"): its blocks with positions for update_template_part. Without slug: list the parts.',
  input: z.object({ slug: partSlug.optional() }),
  scope: "content:read",
  risk: "read",
  capabilities: ["edit_theme_options"],
  theme: "block",
  async run(client, { slug }) {
    const stylesheet = await activeBlockTheme(client);
    if (!slug) {
      const { data } = await client.get<Part[]>("/wp/v2/template-parts", {
        context: "edit",
        _fields: "slug,theme,source,area,title",
      });
      const parts = (Array.isArray(data) ? data : [])
        .filter((part) => part.theme === stylesheet)
        .map((part) => ({
          slug: part.slug,
          title: part.title?.raw,
          area: part.area,
          customised: part.source === "custom",
        }));
      return { summary: "Listed the theme's template parts.", target: { type: "site" }, data: { parts } };
    }
    const item = await readDesignItem(client, `template_part:${slug}`, `The theme has no template part "${slug}".`);
    const content = typeof item.state.content === "string" ? item.state.content : "";
    return {
      summary: `Read the template part "${item.title}".`,
      target: { type: "site", title: item.title },
      data: {
        slug,
        title: item.title,
        area: item.state.area,
        customised: item.state.customised,
        outline: outline(content, parseBlocks(content)),
        content: clip(content, 30_000),
      },
    };
  },
});
