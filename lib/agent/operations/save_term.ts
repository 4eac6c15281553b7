import { z } from "zod";
import { type PlannedItem, planValueUpdate } from "@/lib/changes/plan";
import { defineOperation, OperationError } from "./operation";
import { asStoredTermName, readTermItem, taxonomy, termLabel } from "./terms";

export default defineOperation({
  name: "save_term",
  label: "Create or rename a category or tag",
  description: "Create a category or tag (no id), or change one (id).",
  input: z.object({
    id: z.number().int().positive().optional(),
    taxonomy,
    name: z.string().min(1).max(200).optional(),
    slug: z
      .string()
      .regex(/^[a-z0-9-]{1,200}$/)
      .optional(),
    description: z.string().max(2000).optional(),
    parent: z.string().max(200).optional().describe("parent slug"),
  }),
  scope: "content:write",
  risk: "write",
  pluginFeature: "terms",
  async plan(client, input) {
    const fields: Record<string, string> = {};
    if (input.name !== undefined) fields.name = asStoredTermName(input.name);
    if (input.slug !== undefined) fields.slug = input.slug;
    if (input.description !== undefined) fields.description = input.description.trim();
    if (input.parent !== undefined) fields.parent = input.parent;
    if (input.id === undefined) {
      if (!fields.name) throw new OperationError("A new category or tag needs a name.", "invalid_input");
      const summary = `Created the ${termLabel(input.taxonomy)} "${fields.name}".`;
      const item: PlannedItem = {
        kind: "term",
        ref: "term:new",
        action: "create",
        title: fields.name,
        summary,
        before: null,
        after: { taxonomy: input.taxonomy, ...fields },
        // Where visitors would see it is the site's to say (lib/agent/call-operation.ts).
        visible: false,
        change: { ref: "term:new", expect: null, action: "create", fields: { taxonomy: input.taxonomy, ...fields } },
        beforeState: null,
        versionRead: null,
      };
      return { summary, items: [item], data: (written) => ({ ref: written[0]?.ref }) };
    }
    const current = await readTermItem(client, input.id);
    const item = planValueUpdate(current, fields, "", current.title);
    if (Object.keys(item.change.fields ?? {}).length === 0)
      throw new OperationError(
        `This ${termLabel(String(current.state.taxonomy))} already has these values.`,
        "no_change",
      );
    item.kind = "term";
    item.summary = `Changed the ${Object.keys(item.after ?? {}).join(", ")} of the ${termLabel(String(current.state.taxonomy))} "${current.title}".`;
    return { summary: item.summary, items: [item], data: () => ({ id: input.id }) };
  },
});
