import { z } from "zod";
import { defineOperation } from "./operation";
import { blockEdit, changeTemplateBlock, templateSlug, templateType } from "./template-items";

export default defineOperation({
  name: "update_template_part",
  label: "Change a template or the header/footer",
  description:
    "Replace, insert before/after, or remove one block of a template part or template (positions from read_template_part).",
  input: z.object({ slug: templateSlug, type: templateType, ...blockEdit }),
  scope: "design:write",
  risk: "write",
  capabilities: ["edit_theme_options"],
  theme: "block",
  plan: (client, { slug, type, ...change }) => changeTemplateBlock(client, type ?? "part", slug, change),
});
