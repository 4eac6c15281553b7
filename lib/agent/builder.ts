/**
 * Pages made with a page builder (Elementor), read and edited element by element through the plugin's builder item
 * `elementor:<postId>` (docs/page-builders.md). The plan carries the page's whole `_elementor_data` as the site
 * will store it: the planned edits spliced into the stored JSON, every other byte as it was; the card shows one row
 * per changed setting or element, by its place on the page ("Hero › Heading").
 */
import { type BuilderEdit, BuilderEditError, type BuilderRow, applyEdits } from "@/lib/builders/elementor-edit";
import { ElementorDataError, type ElementorPage, readElementorPage } from "@/lib/builders/elementor-tree";
import { isVisibleChange, type PlannedItem } from "@/lib/changes/plan";
import { readItem, type SiteItem } from "@/lib/sites/items";
import { pluginInfoSchema } from "@/lib/sites/plugin-schemas";
import type { SiteClient } from "@/lib/sites/types";
import { OperationError } from "./operations/operation";

/** The plugin feature (lib/agent/registry.ts) a site has when it runs Elementor and the plugin edits its pages. */
export const ELEMENTOR_FEATURE = "builder:elementor";

export const builderRef = (postId: number) => `elementor:${postId}`;

/** How edit_builder_page's edits are written: told to the model with the page it reads (read_page), not on every call. */
// Names no other operation: the injection check (lib/agent/untrusted.ts) reads tool names in a result as site text.
export const BUILDER_EDIT_FORMS =
  'Built with Elementor: change it only with edit_builder_page (its post content is a fallback copy). edits, in order: ["set",id,setting,value] (setting as listed, e.g. title, link.url, icon_list.0.text) | ["add",newId,widgetType,containerId] (then set its settings by newId) | ["remove",id] | ["duplicate",id] | ["move",id,containerId,index].';

export type BuilderPage = { item: SiteItem & { state: Record<string, unknown> }; page: ElementorPage };

/** Reads a page as an Elementor page; an expected failure (not an Elementor page, unreadable data) for the model. */
export async function readBuilderPage(client: SiteClient, postId: number): Promise<BuilderPage> {
  const item = await readItem(client, builderRef(postId));
  if (!item.exists || !item.state || typeof item.state.data !== "string") {
    throw new OperationError(
      `Page ${postId} is not an Elementor page (or does not exist); use read_page for other pages.`,
      "not_found",
    );
  }
  try {
    return { item: item as BuilderPage["item"], page: readElementorPage(item.state.data) };
  } catch (error) {
    if (error instanceof ElementorDataError) throw new OperationError(error.message, "unreadable_builder_data");
    throw error;
  }
}

/**
 * Refuses a builder write where the site the chat works on does not run Elementor: a sandbox copy without it could
 * neither show nor check the page, so the change would be approved unseen (docs/page-builders.md, "Sandbox mode").
 */
export async function requireElementor(client: SiteClient): Promise<void> {
  const info = pluginInfoSchema.partial().safeParse((await client.get<unknown>("/sitewright/v1/info")).data);
  const builders = info.success ? (info.data.builders ?? []) : [];
  if (!builders.some((builder) => builder.name === "elementor")) {
    throw new OperationError(
      "The site this chat is working on does not run Elementor (in sandbox mode: the sandbox copy does not), so this Elementor page cannot be changed or checked there. Offer the owner to make this change in live mode instead: it will still wait for their approval.",
      "builder_not_running",
    );
  }
}

/** What the card shows for one row: "Hero › Heading · title: old → new". */
export const rowLine = (row: BuilderRow) =>
  `${row.path}${row.setting ? ` · ${row.setting}` : ""}: ${String(row.before ?? "(none)")} → ${String(row.after ?? "(none)")}`;

/** Plans edits of an Elementor page: the builder item with the new stored JSON, and the card's rows. */
export function planBuilderEdits(current: BuilderPage, edits: BuilderEdit[], summary: string): PlannedItem {
  const { item, page } = current;
  let result: { raw: string; rows: BuilderRow[] };
  try {
    result = applyEdits(page.raw, edits);
  } catch (error) {
    if (error instanceof BuilderEditError || error instanceof ElementorDataError)
      throw new OperationError(error.message, "bad_edit");
    throw error;
  }
  if (result.rows.length === 0) throw new OperationError("The page already looks like this.", "no_change");
  return {
    kind: "builder",
    ref: item.ref,
    action: "update",
    title: item.title,
    summary,
    before: { elements: result.rows },
    after: { elements: result.rows },
    visible: isVisibleChange("builder", item.state, undefined),
    change: { ref: item.ref, expect: item.version, action: "update", fields: { data: result.raw } },
    beforeState: item.state,
    versionRead: item.version,
  };
}
