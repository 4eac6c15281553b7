import { z } from "zod";
import { planPostCreate, planPostUpdate } from "@/lib/changes/plan";
import { readItem } from "@/lib/sites/items";
import type { SiteClient } from "@/lib/sites/types";
import { insertItem, linkMarkup, moveItem, navigationEntries, removeItem, renameItem } from "../navigation";
import { edit, position } from "./design";
import { listNavigations, shownNavigation } from "./navigation-posts";
import { defineOperation, OperationError, type WritePlan } from "./operation";

/** What a site with no saved menu shows, saved as its first menu (WordPress's own fallback: the page list). */
const FALLBACK = "<!-- wp:page-list /-->";

/** The links as the owner reads them: "Home · Shop (Bread, Cakes) · all published pages". */
const linkList = (content: string) => {
  const entries = navigationEntries(content);
  const name = (e: (typeof entries)[number]) =>
    e.kind === "page-list" ? "all published pages" : (e.label ?? e.kind.replace(/^core\//, ""));
  return entries
    .filter((e) => !e.position.includes("."))
    .map((e) => {
      const inner = entries.filter(
        (c) => c.position.startsWith(`${e.position}.`) && c.position.split(".").length === 2,
      );
      return inner.length ? `${name(e)} (${inner.map(name).join(", ")})` : name(e);
    })
    .join(" · ");
};

const linkTarget = z
  .string()
  .max(2000)
  .refine((url) => /^(https?:\/\/[^\s]+|\/[^\s]*|#[^\s]*)$/i.test(url), "An http(s) address, a path or #anchor");

const input = z.object({
  id: z.number().int().positive().optional().describe("Menu id; default: the shown menu"),
  action: z.enum(["add", "rename", "move", "remove"]),
  position: position.optional(),
  to: position.optional(),
  label: z.string().min(1).max(100).optional(),
  url: linkTarget.optional(),
  pageId: z.number().int().positive().optional(),
});
type Input = z.infer<typeof input>;
/** The menu's links and title after the edit, in the owner's words. */
type Edited = { next: string; nextTitle: string; summary: string };

const need = (value: unknown, what: string, action: Input["action"]) => {
  if (value === undefined) throw new OperationError(`Give ${what} to ${action} a link.`, "invalid_input");
};

/** A new link: to a page of the site (its address and title read from it), or to a url with a label. */
async function addLink(client: SiteClient, content: string, title: string, { to, label, url, pageId }: Input) {
  let link: Parameters<typeof linkMarkup>[0];
  if (pageId) {
    const { data: page } = await client.get<{ id: number; link: string; title: { raw: string }; type: string }>(
      `/wp/v2/pages/${pageId}`,
      { context: "edit", _fields: "id,link,title,type" },
    );
    if (!page?.link) throw new OperationError(`There is no page ${pageId}.`, "not_found");
    link = { label: label ?? page.title.raw, url: page.link, page: { id: page.id, type: page.type || "page" } };
  } else {
    need(url, "a url or pageId", "add");
    need(label, "a label", "add");
    link = { label: label!, url: url! };
  }
  const next = edit(() => insertItem(content, linkMarkup(link), to));
  return { next, nextTitle: title, summary: `Added the link "${link.label}" to the navigation.` };
}

/** Renames, moves or removes the link at `position`. */
function editLink(content: string, title: string, { action, position: at, to, label }: Input): Edited {
  need(at, "the link's position", action);
  const entry = navigationEntries(content).find((e) => e.position === at);
  if (!entry) throw new OperationError(`There is no link at position ${at}; read_navigation lists them.`, "bad_block");
  const name = entry.label ?? entry.kind;
  if (action === "rename") {
    need(label, "a label", action);
    const next = edit(() => renameItem(content, at!, label!));
    return { next, nextTitle: title, summary: `Renamed the navigation link "${name}" to "${label}".` };
  }
  if (action === "move") {
    need(to, "where to move it (to)", action);
    const next = edit(() => moveItem(content, at!, to!));
    return { next, nextTitle: title, summary: `Moved the navigation link "${name}" to position ${to}.` };
  }
  const next = edit(() => removeItem(content, at!));
  return { next, nextTitle: title, summary: `Removed the navigation link "${name}".` };
}

async function editNavigation(client: SiteClient, content: string, title: string, args: Input): Promise<Edited> {
  if (args.action === "add") return addLink(client, content, title, args);
  if (args.action === "rename" && args.position === undefined) {
    need(args.label, "a label", args.action);
    return { next: content, nextTitle: args.label!, summary: `Renamed the navigation menu to "${args.label}".` };
  }
  return editLink(content, title, args);
}

/** A site showing its fallback page list: the edited links are saved as its first menu. */
function planFirstMenu(content: string, { next, nextTitle, summary }: Edited): WritePlan {
  const item = planPostCreate(
    "wp_navigation",
    { title: nextTitle, content: next, status: "publish" },
    `${summary} (The site showed its page list; it is now saved as a menu.)`,
  );
  Object.assign(item, { before: { Links: linkList(content) }, after: { title: nextTitle, Links: linkList(next) } });
  return {
    summary: item.summary,
    target: { type: "menu", title: nextTitle },
    items: [item],
    data: (written) => ({ id: Number(written[0]?.ref.slice("post:".length)), links: navigationEntries(next) }),
  };
}

export default defineOperation({
  name: "change_navigation",
  label: "Change the navigation",
  description:
    "Change a navigation menu: add a link (to pageId or url), rename a link (or, without position, the menu), move a link (position → to) or remove one. Positions from read_navigation; `to` is where the link ends up (default: last).",
  input,
  scope: "design:write",
  risk: "write",
  capabilities: ["edit_theme_options"],
  theme: "block",
  async plan(client, args) {
    const menus = await listNavigations(client);
    const menu = args.id ? menus.find((m) => m.id === args.id) : await shownNavigation(client, menus);
    if (args.id && !menu) throw new OperationError(`There is no navigation menu ${args.id}.`, "not_found");
    const current = menu ? await readItem(client, `post:${menu.id}`) : null;
    const content = typeof current?.state?.content === "string" ? current.state.content : FALLBACK;
    const title = menu?.title.raw || "Navigation";
    const edited = await editNavigation(client, content, title, args);
    if (!current) return planFirstMenu(content, edited);

    const { next, nextTitle, summary } = edited;
    const item = planPostUpdate(current, nextTitle !== title ? { title: nextTitle } : { content: next }, summary);
    if (Object.keys(item.change.fields ?? {}).length === 0) {
      throw new OperationError("The navigation already is exactly like this.", "no_change");
    }
    // Links live in block attributes, which a block-by-block text diff cannot show: list them by label instead.
    if (item.change.fields?.content !== undefined)
      Object.assign(item, { before: { Links: linkList(content) }, after: { Links: linkList(next) } });
    return {
      summary,
      target: { type: "menu", id: menu!.id, title },
      items: [item],
      data: () => ({ id: menu!.id, links: navigationEntries(next) }),
    };
  },
});
