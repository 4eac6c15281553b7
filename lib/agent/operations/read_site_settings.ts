import { z } from "zod";
import { defineOperation } from "./operation";

const FIELDS = [
  "title",
  "description",
  "url",
  "timezone",
  "date_format",
  "time_format",
  "language",
  "posts_per_page",
  "show_on_front",
  "page_on_front",
  "page_for_posts",
];

export default defineOperation({
  name: "read_site_settings",
  label: "Read the site settings",
  description:
    "Read the site's general settings: title, tagline (description), address, timezone, date format, language, and which page is the front page.",
  input: z.object({}),
  scope: "site:read",
  risk: "read",
  capabilities: ["manage_options"],
  async run(client) {
    const { data } = await client.get<Record<string, unknown>>("/wp/v2/settings");
    const settings = Object.fromEntries(FIELDS.filter((key) => data && key in data).map((key) => [key, data[key]]));
    return { summary: "Read the site settings.", target: { type: "site" }, data: settings };
  },
});
