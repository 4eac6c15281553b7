import { z } from "zod";
import { planPostCreate, planPostUpdate } from "@/lib/changes/plan";
import { readItem } from "@/lib/changes/site-items";
import { insertItem, linkMarkup, moveItem, navigationEntries, removeItem, renameItem } from "../navigation";
import { edit, position } from "./design";
import { listNavigations, shownNavigation } from "./navigation-posts";
import { defineOperation, OperationError } from "./operation";

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

export default defineOperation({
  name: "change_navigation",
  label: "Change the navigation",
  description:
    "Change a navigation menu: add a link (to pageId or url), rename a link (or, without position, the menu), move a link (position → to) or remove one. Positions from read_navigation; `to` is where the link ends up (default: last).",
  input: z.object({
    id: z.number().int().positive().optional().describe("Menu id; default: the shown menu"),
    action: z.enum(["add", "rename", "move", "remove"]),
    position: position.optional(),
    to: position.optional(),
    label: z.string().min(1).max(100).optional(),
    url: linkTarget.optional(),
    pageId: z.number().int().positive().optional(),
  }),
  scope: "design:write",
  risk: "write",
  capabilities: ["edit_theme_options"],
  theme: "block",
  async plan(client, { id, action, position: at, to, label, url, pageId }) {
    const menus = await listNavigations(client);
    const menu = id ? menus.find((m) => m.id === id) : await shownNavigation(client, menus);
    if (id && !menu) throw new OperationError(`There is no navigation menu ${id}.`, "not_found");
    const current = menu ? await readItem(client, `post:${menu.id}`) : null;
    const content = typeof current?.state?.content === "string" ? current.state.content : FALLBACK;
    const title = menu?.title.raw || "Navigation";
    const need = (value: unknown, what: string) => {
      if (value === undefined) throw new OperationError(`Give ${what} to ${action} a link.`, "invalid_input");
    };

    let next = content;
    let nextTitle = title;
    let summary: string;
    if (action === "add") {
      let link: Parameters<typeof linkMarkup>[0];
      if (pageId) {
        const { data: page } = await client.get<{ id: number; link: string; title: { raw: string }; type: string }>(
          `/wp/v2/pages/${pageId}`,
          { context: "edit", _fields: "id,link,title,type" },
        );
        if (!page?.link) throw new OperationError(`There is no page ${pageId}.`, "not_found");
        link = { label: label ?? page.title.raw, url: page.link, page: { id: page.id, type: page.type || "page" } };
      } else {
        need(url, "a url or pageId");
        need(label, "a label");
        link = { label: label!, url: url! };
      }
      next = edit(() => insertItem(content, linkMarkup(link), to));
      summary = `Added the link "${link.label}" to the navigation.`;
    } else if (action === "rename" && at === undefined) {
      need(label, "a label");
      nextTitle = label!;
      summary = `Renamed the navigation menu to "${label}".`;
    } else {
      need(at, "the link's position");
      const entry = navigationEntries(content).find((e) => e.position === at);
      if (!entry)
        throw new OperationError(`There is no link at position ${at}; read_navigation lists them.`, "bad_block");
      const name = entry.label ?? entry.kind;
      if (action === "rename") {
        need(label, "a label");
        next = edit(() => renameItem(content, at!, label!));
        summary = `Renamed the navigation link "${name}" to "${label}".`;
      } else if (action === "move") {
        need(to, "where to move it (to)");
        next = edit(() => moveItem(content, at!, to!));
        summary = `Moved the navigation link "${name}" to position ${to}.`;
      } else {
        next = edit(() => removeItem(content, at!));
        summary = `Removed the navigation link "${name}".`;
      }
    }

    if (!current) {
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
