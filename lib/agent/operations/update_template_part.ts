import { z } from "zod";
import { planValueUpdate } from "@/lib/changes/plan";
import { insertBlock, removeBlock, replaceBlock } from "../blocks";
import { activeBlockTheme, edit, position, readDesignItem } from "./design";
import { defineOperation, OperationError } from "./operation";
import { partSlug } from "./read_template_part";

export default defineOperation({
  name: "update_template_part",
  label: "Change the header or footer",
  description:
    "Replace, insert before/after, or remove one block of a template part (positions from read_template_part).",
  input: z.object({
    slug: partSlug,
    position,
    action: z.enum(["replace", "before", "after", "remove"]),
    markup: z.string().min(1).max(50_000).optional().describe("Block markup"),
  }),
  scope: "design:write",
  risk: "write",
  capabilities: ["edit_theme_options"],
  theme: "block",
  async plan(client, { slug, position: at, action, markup }) {
    await activeBlockTheme(client);
    const item = await readDesignItem(client, `template_part:${slug}`, `The theme has no template part "${slug}".`);
    const content = typeof item.state.content === "string" ? item.state.content : "";
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
    const verb = {
      replace: "Replaced",
      before: "Inserted a block before",
      after: "Inserted a block after",
      remove: "Removed",
    }[action];
    const summary = `${verb} block ${at} of the ${item.title} template part.`;
    const planned = planValueUpdate(item, { content: next }, summary, item.title);
    if (Object.keys(planned.change.fields ?? {}).length === 0) {
      throw new OperationError("The template part already is exactly like this.", "no_change");
    }
    return { summary, target: { type: "site", title: item.title }, items: [planned] };
  },
});
