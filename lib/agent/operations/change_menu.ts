import { z } from "zod";
import { planValueUpdate } from "@/lib/changes/plan";
import { readItem } from "@/lib/sites/items";
import type { SiteClient } from "@/lib/sites/types";
import { defineOperation, OperationError } from "./operation";

const change = z.discriminatedUnion("action", [
  z.object({
    action: z.literal("add"),
    title: z.string().min(1).max(200),
    url: z
      .url({ protocol: /^https?$/ })
      .optional()
      .describe("A link to any address"),
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

/** A menu item as the plugin's `menu:<id>` state lists it (parent = 1-based position in the list, 0 = top). */
type StateItem = { title: string; url: string; type: string; object: string; object_id: number; parent: number };
type Node = Omit<StateItem, "parent"> & { id?: number; parent: Node | null };

/** The menu's items as a tree, each existing item knowing its WordPress id (ids follow the same menu order). */
async function readTree(client: SiteClient, menuId: number, state: StateItem[]): Promise<Node[]> {
  const { data } = await client.get<Array<{ id: number }>>("/wp/v2/menu-items", {
    menus: menuId,
    per_page: 100,
    orderby: "menu_order",
    order: "asc",
    _fields: "id,menu_order",
  });
  if (data.length !== state.length) {
    throw new OperationError("The menu changed while it was being read; read it again.", "menu_changed");
  }
  const nodes: Node[] = state.map((item, index) => ({ ...item, id: data[index]!.id, parent: null }));
  state.forEach((item, index) => {
    nodes[index]!.parent = item.parent > 0 ? (nodes[item.parent - 1] ?? null) : null;
  });
  return nodes;
}

const isWithin = (node: Node | null, ancestor: Node): boolean =>
  node === null ? false : node === ancestor || isWithin(node.parent, ancestor);

/** Places `node` among its siblings at 1-based `order` (or last), in the flat list's order. */
function place(nodes: Node[], node: Node, order?: number) {
  const at = nodes.indexOf(node);
  if (at >= 0) nodes.splice(at, 1);
  const siblings = nodes.filter((n) => n.parent === node.parent);
  const before = order !== undefined ? siblings[order - 1] : undefined;
  nodes.splice(before ? nodes.indexOf(before) : nodes.length, 0, node);
}

/** Depth first, siblings in list order: the menu order WordPress shows. */
function flatten(nodes: Node[]): StateItem[] {
  const ordered: Node[] = [];
  const visit = (parent: Node | null) => {
    for (const node of nodes.filter((n) => n.parent === parent)) {
      ordered.push(node);
      visit(node);
    }
  };
  visit(null);
  return ordered.map(({ id: _id, parent, ...item }) => ({
    ...item,
    parent: parent ? ordered.indexOf(parent) + 1 : 0,
  }));
}

function applyChange(nodes: Node[], c: Change): string {
  const find = (id: number) => {
    const node = nodes.find((n) => n.id === id);
    if (!node) throw new OperationError(`Menu item ${id} is not in this menu (see read_menus).`, "not_found");
    return node;
  };
  if (c.action === "add") {
    const node: Node = {
      title: c.title,
      url: c.url ?? "",
      type: c.pageId ? "post_type" : "custom",
      object: c.pageId ? "page" : "custom",
      object_id: c.pageId ?? 0,
      parent: c.parent > 0 ? find(c.parent) : null,
    };
    place(nodes, node, c.order);
    return `add "${c.title}"`;
  }
  const node = find(c.itemId);
  if (c.action === "rename") {
    node.title = c.title;
    return `rename item ${c.itemId} to "${c.title}"`;
  }
  if (c.action === "move") {
    if (c.parent !== undefined) {
      const parent = c.parent > 0 ? find(c.parent) : null;
      if (parent && isWithin(parent, node))
        throw new OperationError("An item cannot be nested under itself.", "bad_move");
      node.parent = parent;
    }
    place(nodes, node, c.order);
    return `move item ${c.itemId}`;
  }
  for (const child of nodes.filter((n) => n.parent === node)) child.parent = node.parent;
  nodes.splice(nodes.indexOf(node), 1);
  return `remove item ${c.itemId}`;
}

export default defineOperation({
  name: "change_menu",
  label: "Change a menu",
  description:
    "Change a navigation menu (ids from read_menus): add a link to a page or address, rename, move or remove items. Several changes can be made at once, in order; they are written together or not at all.",
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
  theme: "classic",
  async plan(client, { menuId, changes }) {
    const current = await readItem(client, `menu:${menuId}`);
    if (!current.exists || !current.state) throw new OperationError(`There is no menu ${menuId}.`, "not_found");
    const nodes = await readTree(client, menuId, (current.state.items ?? []) as StateItem[]);
    const done = changes.map((c) => applyChange(nodes, c));
    const summary = `Changed menu "${current.title}": ${done.join("; ")}.`;
    return {
      summary,
      target: { type: "menu", id: menuId, title: current.title },
      items: [planValueUpdate(current, { items: flatten(nodes) }, summary)],
      data: () => ({ menuId }),
    };
  },
});
