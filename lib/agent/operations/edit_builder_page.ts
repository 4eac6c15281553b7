import { z } from "zod";
import type { BuilderEdit } from "@/lib/builders/elementor-edit";
import { ELEMENTOR_FEATURE, planBuilderEdits, readBuilderPage, requireElementor } from "../builder";
import { isKitEdit, type KitEdit, planKitEdits } from "../elementor-kit";
import { defineOperation, OperationError } from "./operation";
import { postId } from "./wordpress";

const ID = /^[A-Za-z0-9]{1,20}$/;

/**
 * One edit as a short list of strings: the cheapest shape for the model to read on every call (a union of objects
 * cost four times the tokens: lib/agent/tool-budget.test.ts). Checked here, each mistake told back in words.
 */
export function toBuilderEdit(edit: string[]): BuilderEdit {
  const [op, elementId = "", a, b] = edit;
  if (!ID.test(elementId)) throw new OperationError(`"${elementId}" is not an element id.`, "bad_edit");
  if (op === "set" && a !== undefined && b !== undefined) return { op, elementId, setting: a, value: b };
  if (op === "add" && a && b && ID.test(b)) return { op, alias: elementId, widgetType: a, to: b };
  if (op === "remove" || op === "duplicate") return { op, elementId };
  if (op === "move" && a && ID.test(a) && /^\d{1,3}$/.test(b ?? "")) {
    return { op, elementId, to: a, position: Number(b) };
  }
  throw new OperationError(`Edit ${JSON.stringify(edit).slice(0, 200)} is not one of the forms listed.`, "bad_edit");
}

/** A kit edit (`["color", tokenId, value]`, `["font", tokenId, family]`); the plugin checks the value too. */
function toKitEdit(edit: string[]): KitEdit {
  const [form, tokenId = "", value] = edit;
  if ((form === "color" || form === "font") && ID.test(tokenId) && value && value.length <= 100) {
    return { form, tokenId, value };
  }
  throw new OperationError(`Edit ${JSON.stringify(edit).slice(0, 200)} is not one of the forms listed.`, "bad_edit");
}

export default defineOperation({
  name: "edit_builder_page",
  label: "Edit an Elementor page",
  // The edit forms are in read_page's answer for an Elementor page (BUILDER_EDIT_FORMS) and get_site_info's for the
  // kit (lib/agent/elementor-kit.ts): paid for only when used.
  description: "Edit an Elementor page (forms: read_page) or its kit's colours and fonts (forms: get_site_info).",
  // Bounds as refinements: they hold without being spelled out in the schema the model reads.
  input: z.object({
    id: postId,
    edits: z
      .array(
        z
          .array(z.string())
          .refine((edit) => edit.length >= 2 && edit.length <= 4 && edit.every((s) => s.length <= 20_000)),
      )
      .refine((edits) => edits.length >= 1 && edits.length <= 30, "Give 1 to 30 edits."),
  }),
  scope: "content:write",
  risk: "write",
  pluginFeature: ELEMENTOR_FEATURE,
  async plan(client, { id, edits }) {
    if (edits.some(isKitEdit)) {
      // The kit (global colours and fonts): a design item of its own, never mixed with a page's edits.
      if (!edits.every(isKitEdit)) throw new OperationError("Change the kit and a page in separate calls.", "bad_edit");
      const kitEdits = edits.map(toKitEdit);
      await requireElementor(client);
      const item = await planKitEdits(client, id, kitEdits);
      return { summary: item.summary, target: { type: "site" }, items: [item] };
    }
    const changes = edits.map(toBuilderEdit);
    await requireElementor(client);
    const current = await readBuilderPage(client, id);
    const summary = `Changed the Elementor page "${current.item.title.slice(0, 80)}".`;
    const planned = planBuilderEdits(current, changes, summary);
    return { summary, target: { type: "page", id, title: current.item.title }, items: [planned] };
  },
});
