/**
 * A block theme's templates as the agent edits them: whole templates (`template:<slug>`) and template parts
 * (`template_part:<slug>`) share one item shape (the plugin's Sitewright_Design_Items), one outline read and one
 * block edit. The first write of a theme's file makes it a customised post; undo removes that post again.
 */
import { z } from "zod";
import { planValueUpdate } from "@/lib/changes/plan";
import type { SiteClient } from "@/lib/sites/types";
import { insertBlock, outline, parseBlocks, removeBlock, replaceBlock } from "../blocks";
import { activeBlockTheme, edit, position, readDesignItem } from "./design";
import { OperationError, type WritePlan } from "./operation";
import { clip } from "./wordpress";

export const templateSlug = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,99}$/);

/** `part`: a template part (header, footer); `template`: a whole template (index, single, page...). */
export const templateType = z
  .enum(["part", "template"])
  .optional()
  .describe('"template": a whole template (e.g. "index", "single"), not a part');
export type TemplateType = z.infer<typeof templateType>;

const KIND = { part: "template_part", template: "template" } as const;
const ROUTE = { part: "/wp/v2/template-parts", template: "/wp/v2/templates" } as const;
const NOUN = { part: "template part", template: "template" } as const;

type Listed = { slug: string; theme: string; source: string; area?: string; title: { raw?: string } };

/** The active theme's templates or parts: slug, title, area (parts) and whether the owner customised it. */
export async function listTemplates(client: SiteClient, type: "part" | "template") {
  const stylesheet = await activeBlockTheme(client);
  const { data } = await client.get<Listed[]>(ROUTE[type], {
    context: "edit",
    _fields: type === "part" ? "slug,theme,source,area,title" : "slug,theme,source,title",
  });
  return (Array.isArray(data) ? data : [])
    .filter((template) => template.theme === stylesheet)
    .map((template) => ({
      slug: template.slug,
      title: template.title?.raw,
      ...(type === "part" ? { area: template.area } : {}),
      customised: template.source === "custom",
    }));
}

async function readTemplateItem(client: SiteClient, type: "part" | "template", slug: string) {
  await activeBlockTheme(client);
  const item = await readDesignItem(client, `${KIND[type]}:${slug}`, `The theme has no ${NOUN[type]} "${slug}".`);
  return { item, content: typeof item.state.content === "string" ? item.state.content : "" };
}

/** One template or part: its blocks with positions (for changeTemplateBlock) and its markup. */
export async function readTemplate(client: SiteClient, type: "part" | "template", slug: string) {
  const { item, content } = await readTemplateItem(client, type, slug);
  return {
    summary: `Read the ${NOUN[type]} "${item.title}".`,
    target: { type: "site" as const, title: item.title },
    data: {
      slug,
      title: item.title,
      ...(type === "part" ? { area: item.state.area } : {}),
      customised: item.state.customised,
      outline: outline(content, parseBlocks(content)),
      content: clip(content, 30_000),
    },
  };
}

export const blockEdit = {
  position,
  action: z.enum(["replace", "before", "after", "remove"]),
  markup: z.string().min(1).max(50_000).optional().describe("Block markup"),
};
type BlockEdit = { position: string; action: "replace" | "before" | "after" | "remove"; markup?: string };

const VERB = {
  replace: "Replaced",
  before: "Inserted a block before",
  after: "Inserted a block after",
  remove: "Removed",
} as const;

/** Plans replacing, inserting before/after or removing one block of a template or part. */
export async function changeTemplateBlock(
  client: SiteClient,
  type: "part" | "template",
  slug: string,
  { position: at, action, markup }: BlockEdit,
): Promise<WritePlan> {
  const { item, content } = await readTemplateItem(client, type, slug);
  if (action !== "remove" && markup === undefined) {
    throw new OperationError(
      `Give the block markup to ${action === "replace" ? "put there" : "insert"}.`,
      "invalid_input",
    );
  }
  const next = edit(() =>
    action === "remove"
      ? removeBlock(content, at)
      : action === "replace"
        ? replaceBlock(content, at, markup!)
        : insertBlock(content, at, action, markup!),
  );
  const summary = `${VERB[action]} block ${at} of the ${item.title} ${NOUN[type]}.`;
  const planned = planValueUpdate(item, { content: next }, summary, item.title);
  if (Object.keys(planned.change.fields ?? {}).length === 0) {
    throw new OperationError(`The ${NOUN[type]} already is exactly like this.`, "no_change");
  }
  return { summary, target: { type: "site", title: item.title }, items: [planned] };
}
