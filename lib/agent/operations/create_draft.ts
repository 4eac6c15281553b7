import { z } from "zod";
import { planPostCreate } from "@/lib/changes/plan";
import { defineOperation } from "./operation";
import { contentType } from "./wordpress";
import { asStoredMarkup, asStoredTitle } from "@/lib/wordpress/stored-text";

export default defineOperation({
  name: "create_draft",
  label: "Create a draft",
  description:
    "Create a new page or post as a draft (never published: publishing is a separate step the user approves). Content is WordPress block markup, e.g. `<!-- wp:paragraph --><p>Hello</p><!-- /wp:paragraph -->`.",
  input: z.object({
    type: contentType,
    title: z.string().min(1).max(300).describe("The title"),
    content: z.string().max(100_000).default("").describe("Block markup for the body"),
    excerpt: z.string().max(2000).optional().describe("A short summary"),
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
