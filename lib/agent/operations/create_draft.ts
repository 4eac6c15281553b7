import { z } from "zod";
import { planPostCreate } from "@/lib/changes/plan";
import { defineOperation } from "./operation";
import { contentType } from "./wordpress";
import { asStoredMarkup, asStoredTitle } from "@/lib/wordpress/stored-text";

export default defineOperation({
  name: "create_draft",
  label: "Create a draft",
  description: "Create a page or post as a draft. Content is block markup.",
  input: z.object({
    type: contentType,
    title: z.string().min(1).max(300),
    content: z.string().max(100_000).default(""),
    excerpt: z.string().max(2000).optional(),
  }),
  scope: "content:write",
  risk: "write",
  async plan(_client, input) {
    const { type } = input;
    const title = asStoredTitle(input.title);
    const content = asStoredMarkup(input.content);
    const excerpt = input.excerpt === undefined ? undefined : asStoredMarkup(input.excerpt);
    const fields: Record<string, unknown> = { title, content, status: "draft" };
    if (excerpt !== undefined) fields.excerpt = excerpt;
    const summary = `Created draft ${type} "${title}".`;
    return {
      summary,
      target: { type, title },
      items: [planPostCreate(type, fields, summary)],
      data: (written) => {
        const id = Number(written[0]?.ref.slice("post:".length));
        return { id, status: "draft" };
      },
    };
  },
});
