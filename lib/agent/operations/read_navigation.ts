import { z } from "zod";
import { navigationEntries } from "../navigation";
import { defineOperation } from "./operation";
import { listNavigations, shownNavigation } from "./navigation-posts";

export default defineOperation({
  name: "read_navigation",
  label: "Read the navigation",
  description:
    "List the site's navigation menus and the links of one (default: the menu the site shows), with positions for change_navigation.",
  input: z.object({ id: z.number().int().positive().optional() }),
  scope: "content:read",
  risk: "read",
  capabilities: ["edit_theme_options"],
  theme: "block",
  async run(client, { id }) {
    const menus = await listNavigations(client);
    const shown = await shownNavigation(client, menus);
    const chosen = id ? menus.find((menu) => menu.id === id) : shown;
    const list = menus.map((menu) => ({
      id: menu.id,
      title: menu.title.raw,
      status: menu.status,
      shown: menu === shown,
    }));
    if (!chosen) {
      return {
        summary: id ? `There is no navigation menu ${id}.` : "The site has no saved navigation menu.",
        target: { type: "menu" },
        data: {
          menus: list,
          ...(id
            ? {}
            : {
                shown: "the list of published pages",
                links: [{ position: "1", kind: "page-list" }],
                note: "change_navigation saves this as the site's menu on its first change.",
              }),
        },
      };
    }
    return {
      summary: `Read the navigation menu "${chosen.title.raw}".`,
      target: { type: "menu", id: chosen.id, title: chosen.title.raw },
      data: { menus: list, id: chosen.id, links: navigationEntries(chosen.content.raw) },
    };
  },
});
