/**
 * Elementor's kit: the site's global colours and fonts, read as design tokens and changed as the design item
 * `elementor_kit:active` (docs/page-builders.md, "Kit"). The model sees the tokens in get_site_info's answer and
 * sets them with edit_builder_page's `["color", tokenId, value]` and `["font", tokenId, family]` forms, so no tool
 * definition grows (lib/agent/tool-budget.test.ts). The card shows each token by its name: "Colour Primary".
 */
import type { PlannedItem } from "@/lib/changes/plan";
import { planValueUpdate } from "@/lib/changes/plan";
import { readItem, type SiteItem } from "@/lib/sites/items";
import { scopeRefusal } from "@/lib/sites/permissions";
import type { SiteClient } from "@/lib/sites/types";
import { OperationError } from "./operations/operation";

export const KIT_REF = "elementor_kit:active";

/** The forms of a kit edit, and the item field each sets. */
const KIT_FORMS = { color: "colors", font: "fonts" } as const;
export type KitEdit = { form: keyof typeof KIT_FORMS; tokenId: string; value: string };

export const isKitEdit = (edit: string[]): boolean => edit[0] === "color" || edit[0] === "font";

/** How the model changes a token, told with the tokens themselves (get_site_info), not on every call. */
export const kitEditForms = (kit: number) =>
  `Change with edit_builder_page {id:${kit}, edits:[["color",tokenId,"#hex"] | ["font",tokenId,"Family name"]]}: site-wide, on every Elementor page.`;

type KitState = {
  kit: number;
  colors: Record<string, string | null>;
  fonts: Record<string, string | null>;
  labels: Record<string, string>;
};

const tokens = (values: Record<string, string | null>, labels: Record<string, string>) =>
  Object.entries(values).map(([id, value]) => ({ id, name: labels[id] ?? id, value }));

/** The kit as the model reads it (null when Elementor has no active kit or the plugin has no kit item). */
export async function readKitTokens(client: SiteClient) {
  const item = await readItem(client, KIT_REF).catch(() => null);
  if (!item?.exists || !item.state) return null;
  const state = item.state as KitState;
  return {
    id: state.kit,
    colors: tokens(state.colors, state.labels),
    fonts: tokens(state.fonts, state.labels),
    note: kitEditForms(state.kit),
  };
}

/** Plans a kit change: the named tokens only, the card one row per token by its name, as a design item. */
export async function planKitEdits(client: SiteClient, id: number, edits: KitEdit[]): Promise<PlannedItem> {
  // The kit is design (the plugin asks design:write): say how to grant it now, not after the owner's click.
  const { data: info } = await client.get<{ token?: { scopes?: unknown } }>("/sitewright/v1/info");
  const scopes = info?.token?.scopes;
  if (Array.isArray(scopes) && !scopes.includes("design:write")) {
    throw new OperationError(scopeRefusal("design:write"), "scope_not_granted");
  }
  const item: SiteItem = await readItem(client, KIT_REF);
  if (!item.exists || !item.state) throw new OperationError("This site's Elementor has no active kit.", "not_found");
  const state = item.state as KitState;
  if (state.kit !== id) {
    throw new OperationError(`The active Elementor kit is ${state.kit}, not ${id}: use id ${state.kit}.`, "bad_edit");
  }
  const fields: Record<string, Record<string, string>> = {};
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  for (const { form, tokenId, value } of edits) {
    const field = KIT_FORMS[form];
    if (!(tokenId in state[field])) {
      const known = Object.keys(state[field]).join(", ");
      throw new OperationError(`The kit has no ${form} ${tokenId}; its ${field}: ${known}.`, "bad_edit");
    }
    if (state[field][tokenId] === value) continue;
    fields[field] = { ...fields[field], [tokenId]: value };
    const label = `${form === "color" ? "Colour" : "Font"} ${state.labels[tokenId] ?? tokenId}`;
    before[label] = state[field][tokenId];
    after[label] = value;
  }
  if (Object.keys(fields).length === 0) throw new OperationError("The kit already looks like this.", "no_change");
  const summary = `Changed Elementor's global ${Object.keys(fields).join(" and ")}.`;
  const planned = planValueUpdate(item, fields, summary, "Elementor global colours and fonts");
  return { ...planned, before, after };
}
