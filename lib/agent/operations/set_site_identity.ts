import { z } from "zod";
import { planValueUpdate } from "@/lib/changes/plan";
import { readItems } from "@/lib/sites/items";
import { defineOperation, OperationError } from "./operation";

export default defineOperation({
  name: "set_site_identity",
  label: "Change the site title or tagline",
  description:
    "Change the site's title and/or tagline (shown in the header, browser tab and search results). Waits for the owner's approval in the chat.",
  input: z
    .object({
      title: z.string().min(1).max(200).optional().describe("The new site title"),
      tagline: z.string().max(300).optional().describe("The new tagline (WordPress calls it description)"),
    })
    .refine((input) => input.title !== undefined || input.tagline !== undefined, {
      message: "Give a title, a tagline, or both.",
    }),
  scope: "settings:write",
  risk: "write",
  capabilities: ["manage_options"],
  async plan(client, { title, tagline }) {
    const wanted: Array<[string, string]> = [];
    if (title !== undefined) wanted.push(["option:blogname", title]);
    if (tagline !== undefined) wanted.push(["option:blogdescription", tagline]);
    const current = await readItems(
      client,
      wanted.map(([ref]) => ref),
    );
    const items = wanted
      .map(([ref, value], index) => {
        const label = ref === "option:blogname" ? "title" : "tagline";
        return planValueUpdate(current[index]!, { value }, `Changed the site ${label}.`);
      })
      .filter((item) => Object.keys(item.change.fields ?? {}).length > 0);
    if (items.length === 0) throw new OperationError("The site already has exactly these values.", "no_change");
    return {
      summary: `Changed the site ${[title !== undefined && "title", tagline !== undefined && "tagline"].filter(Boolean).join(" and ")}.`,
      target: { type: "site" },
      items,
    };
  },
});
