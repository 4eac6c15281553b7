import { z } from "zod";
import { readKitTokens } from "../elementor-kit";
import { defineOperation } from "./operation";

export default defineOperation({
  name: "get_site_info",
  label: "Read the site's information",
  description:
    "The site's name, URLs, WordPress and PHP versions, theme, page builder (with Elementor's kit colours and fonts) and what the Sitewright plugin can do. Use it first to learn what kind of site this is.",
  input: z.object({}),
  scope: "site:read",
  risk: "read",
  async run(client) {
    const { data } = await client.get<Record<string, unknown>>("/sitewright/v1/info");
    // Elementor's global colours and fonts are the site's design tokens there, with how to change them.
    const elementor = Array.isArray(data?.builders) && data.builders.some((b) => b?.name === "elementor");
    const kit = elementor ? await readKitTokens(client) : null;
    return {
      summary: "Read the site's information.",
      target: { type: "site" },
      data: kit ? { ...data, elementorKit: kit } : data,
    };
  },
});
