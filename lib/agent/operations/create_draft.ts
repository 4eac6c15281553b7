import { z } from "zod";
import { defineOperation } from "./operation";
import { contentType, routeFor, type EditablePost } from "./wordpress";

export default defineOperation({
  name: "create_draft",
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
  async run(client, { type, title, content, excerpt }) {
    const body: Record<string, unknown> = { title, content, status: "draft" };
    if (excerpt !== undefined) body.excerpt = excerpt;
    const { data } = await client.post<EditablePost>(routeFor(type), body);
    return {
      summary: `Created draft ${type} ${data.id} ("${title}").`,
      target: { type, id: data.id, title, link: data.link },
      after: { title, status: "draft" },
      data: { id: data.id, status: data.status, link: data.link },
    };
  },
});
