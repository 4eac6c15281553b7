import { z } from "zod";
import { defineOperation } from "./operation";
import { listTemplates, readTemplate, templateSlug, templateType } from "./template-items";

export default defineOperation({
  name: "read_template_part",
  label: "Read a template or the header/footer",
  description:
    'Read a template part (e.g. "header", "footer") or, with type "template", a whole template: its blocks with positions for update_template_part. Without slug: list parts and templates.',
  input: z.object({ slug: templateSlug.optional(), type: templateType }),
  scope: "content:read",
  risk: "read",
  capabilities: ["edit_theme_options"],
  theme: "block",
  async run(client, { slug, type }) {
    if (!slug) {
      const [parts, templates] = await Promise.all([listTemplates(client, "part"), listTemplates(client, "template")]);
      return {
        summary: "Listed the theme's templates and parts.",
        target: { type: "site" },
        data: { parts, templates },
      };
    }
    return readTemplate(client, type ?? "part", slug);
  },
});
