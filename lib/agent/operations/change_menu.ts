import { z } from "zod";
import type { SiteClient } from "@/lib/sites/types";
import { defineOperation, OperationError } from "./operation";

const change = z.discriminatedUnion("action", [
  z.object({
    action: z.literal("add"),
    title: z.string().min(1).max(200),
    url: z.url({ protocol: /^https?$/ }).optional().describe("A link to any address"),
    pageId: z.number().int().positive().optional().describe("Or: link to this page (its address follows the page)"),
    parent: z.number().int().min(0).default(0).describe("The menu item to nest under; 0 for the top level"),
    order: z.number().int().min(1).optional().describe("Position among its siblings, from 1"),
  }),
  z.object({ action: z.literal("rename"), itemId: z.number().int().positive(), title: z.string().min(1).max(200) }),
  z.object({
    action: z.literal("move"),
    itemId: z.number().int().positive(),
    parent: z.number().int().min(0).optional(),
    order: z.number().int().min(1).optional(),
  }),
  z.object({ action: z.literal("remove"), itemId: z.number().int().positive() }),
]);

type Change = z.output<typeof change>;

async function applyChange(client: SiteClient, menuId: number, c: Change): Promise<string> {
  if (c.action === "add") {
    const body: Record<string, unknown> = { title: c.title, menus: menuId, parent: c.parent, status: "publish" };
    if (c.pageId) Object.assign(body, { type: "post_type", object: "page", object_id: c.pageId });
    else Object.assign(body, { type: "custom", url: c.url });
    if (c.order) body.menu_order = c.order;
    const { data } = await client.post<{ id: number }>("/wp/v2/menu-items", body);
    return `added "${c.title}" (item ${data.id})`;
  }
  if (c.action === "rename") {
    await client.post(`/wp/v2/menu-items/${c.itemId}`, { title: c.title });
    return `renamed item ${c.itemId} to "${c.title}"`;
  }
  if (c.action === "move") {
    const body: Record<string, unknown> = {};
    if (c.parent !== undefined) body.parent = c.parent;
    if (c.order !== undefined) body.menu_order = c.order;
    await client.post(`/wp/v2/menu-items/${c.itemId}`, body);
    return `moved item ${c.itemId}`;
  }
  await client.delete(`/wp/v2/menu-items/${c.itemId}`, { force: true });
  return `removed item ${c.itemId}`;
}

type Item = { id: number; title: { raw?: string }; url: string; parent: number; menu_order: number; menus: number };

export default defineOperation({
  name: "change_menu",
  description:
    "Change a navigation menu (ids from read_menus): add a link to a page or address, rename, move or remove items. Several changes can be made at once, in order. The user must approve this in the chat before it runs.",
  input: z.object({
    menuId: z.number().int().positive(),
    changes: z
      .array(change)
      .min(1)
      .max(20)
      .refine((list) => list.every((c) => c.action !== "add" || (c.url === undefined) !== (c.pageId === undefined)), {
        message: "Each added item needs exactly one of url or pageId.",
      }),
  }),
  scope: "design:write",
  risk: "destructive",
  capabilities: ["edit_theme_options"],
  async run(client, { menuId, changes }) {
    const items = async () =>
      (
        await client.get<Item[]>("/wp/v2/menu-items", { context: "edit", menus: menuId, per_page: 100, _fields: "id,title,url,parent,menu_order" })
      ).data.map((i) => ({ id: i.id, title: i.title?.raw ?? "", parent: i.parent, order: i.menu_order }));
    const before = await items();
    const done: string[] = [];
    for (const [index, c] of changes.entries()) {
      try {
        done.push(await applyChange(client, menuId, c));
      } catch (error) {
        // Earlier changes are already on the site: say so, so the model and the audit log know.
        const reason = error instanceof Error ? error.message : String(error);
        const partial = done.length > 0 ? ` Already done: ${done.join("; ")}.` : " Nothing was changed.";
        throw new OperationError(`Change ${index + 1} (${c.action}) failed: ${reason}.${partial}`, "partly_done", { cause: error });
      }
    }
    return {
      summary: `Changed menu ${menuId}: ${done.join("; ")}.`,
      target: { type: "menu", id: menuId },
      before: { items: before },
      after: { items: await items() },
    };
  },
});
