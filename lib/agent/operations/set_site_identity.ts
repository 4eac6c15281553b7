import { z } from "zod";
import { defineOperation } from "./operation";

type Settings = { title: string; description: string };

export default defineOperation({
  name: "set_site_identity",
  description: "Change the site's title and/or tagline (shown in the header, browser tab and search results).",
  input: z
    .object({
      title: z.string().min(1).max(200).optional().describe("The new site title"),
      tagline: z.string().max(300).optional().describe("The new tagline (WordPress calls it description)"),
    })
    .refine((input) => input.title !== undefined || input.tagline !== undefined, { message: "Give a title, a tagline, or both." }),
  scope: "settings:write",
  risk: "write",
  capabilities: ["manage_options"],
  async run(client, { title, tagline }) {
    const current = (await client.get<Settings>("/wp/v2/settings")).data;
    const changes: Record<string, string> = {};
    if (title !== undefined) changes.title = title;
    if (tagline !== undefined) changes.description = tagline;
    const saved = (await client.post<Settings>("/wp/v2/settings", changes)).data;
    const pick = (s: Settings) => ({
      ...(title !== undefined ? { title: s.title } : {}),
      ...(tagline !== undefined ? { tagline: s.description } : {}),
    });
    return {
      summary: `Changed the site ${[title !== undefined && "title", tagline !== undefined && "tagline"].filter(Boolean).join(" and ")}.`,
      target: { type: "site" },
      before: pick(current),
      after: pick(saved),
    };
  },
});
