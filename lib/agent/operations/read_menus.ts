import { z } from "zod";
import { defineOperation } from "./operation";

type Menu = { id: number; name: string; slug: string; locations?: string[] };
type MenuItem = {
  id: number;
  title: { raw?: string; rendered?: string };
  url: string;
  parent: number;
  menu_order: number;
  type: string;
  object: string;
  object_id: number;
  menus: number;
};

export default defineOperation({
  name: "read_menus",
  label: "Read the menus",
  description:
    "Read the site's navigation menus (classic menus) and their items: id, title, URL, parent item and order. Use the ids with change_menu.",
  input: z.object({}),
  scope: "content:read",
  risk: "read",
  capabilities: ["edit_theme_options"],
  theme: "classic",
  async run(client) {
    const menus = (
      await client.get<Menu[]>("/wp/v2/menus", { context: "edit", per_page: 100, _fields: "id,name,slug,locations" })
    ).data;
    const list = Array.isArray(menus) ? menus : [];
    const withItems = [];
    for (const menu of list) {
      const items = (
        await client.get<MenuItem[]>("/wp/v2/menu-items", {
          context: "edit",
          menus: menu.id,
          per_page: 100,
          _fields: "id,title,url,parent,menu_order,type,object,object_id",
        })
      ).data;
      withItems.push({
        id: menu.id,
        name: menu.name,
        locations: menu.locations ?? [],
        items: (Array.isArray(items) ? items : []).map((item) => ({
          id: item.id,
          title: item.title?.raw ?? item.title?.rendered ?? "",
          url: item.url,
          parent: item.parent,
          order: item.menu_order,
          links: item.type === "post_type" ? { type: item.object, id: item.object_id } : undefined,
        })),
      });
    }
    return { summary: `Read ${withItems.length} menus.`, target: { type: "menu" }, data: { menus: withItems } };
  },
});
