import { z } from "zod";
import { defineOperation } from "./operation";

export default defineOperation({
  name: "get_site_info",
  label: "Read the site's information",
  description:
    "Get basic facts about the WordPress site: its name, URLs, WordPress and PHP versions, active theme, page builder and what the Sitewright plugin can do. Use it first when you need to know what kind of site this is.",
  input: z.object({}),
  scope: "site:read",
  risk: "read",
  async run(client) {
    const { data } = await client.get("/sitewright/v1/info");
    return { summary: "Read the site's information.", target: { type: "site" }, data };
  },
});
