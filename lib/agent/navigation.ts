/**
 * A block theme's navigation (`wp_navigation` post content) read as a list of links and edited one link at a
 * time: add, rename, move, remove. Edits splice source ranges found by lib/agent/blocks.ts, so every other byte of
 * the navigation (other links, their attributes, blocks we do not know) stays as it was.
 */
import { BlockEditError, findBlock, parseBlocks, type BlockNode } from "./blocks";

export type NavigationEntry = {
  /** Outline position: "2" the second item, "2.1" the first link inside a submenu at "2". */
  position: string;
  /** `link`, `submenu`, `page-list` (all published pages), `home`, or the block name for anything else. */
  kind: string;
  label?: string;
  url?: string;
  /** The page or post a link points to. */
  id?: number;
};

const KINDS: Record<string, string> = {
  "core/navigation-link": "link",
  "core/navigation-submenu": "submenu",
  "core/page-list": "page-list",
  "core/home-link": "home",
};

/** Block markup's label (rich text HTML) as plain text. */
const labelText = (html: unknown) =>
  typeof html === "string"
    ? html
        .replace(/<[^>]*>/g, "")
        .replace(/&lt;/g, "<")
        .replace(/&gt;/g, ">")
        .replace(/&quot;/g, '"')
        .replace(/&#0?39;/g, "'")
        .replace(/&amp;/g, "&")
    : undefined;

const escapeHtml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** The links of a navigation, in order, with positions. */
export function navigationEntries(content: string): NavigationEntry[] {
  const entries: NavigationEntry[] = [];
  const walk = (nodes: BlockNode[], prefix: string) => {
    nodes
      .filter((node) => node.name !== null)
      .forEach((node, index) => {
        const position = prefix ? `${prefix}.${index + 1}` : `${index + 1}`;
        const attrs = node.attrs ?? {};
        const entry: NavigationEntry = { position, kind: KINDS[node.name!] ?? node.name! };
        const label = labelText(attrs.label);
        if (label !== undefined) entry.label = label;
        if (typeof attrs.url === "string") entry.url = attrs.url;
        if (typeof attrs.id === "number") entry.id = attrs.id;
        entries.push(entry);
        walk(node.children, position);
      });
  };
  walk(parseBlocks(content), "");
  return entries;
}

/** Block attributes as WordPress's serialize_block_attributes() writes them (safe inside an HTML comment). */
export function serializeAttributes(attrs: Record<string, unknown>): string {
  return JSON.stringify(attrs)
    .replace(/--/g, "\\u002d\\u002d")
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\\"/g, "\\u0022");
}

/** A navigation link to a URL, or to a page (which WordPress then follows if its address changes). */
export function linkMarkup(link: { label: string; url: string; page?: { id: number; type: string } }): string {
  const attrs: Record<string, unknown> = { label: escapeHtml(link.label) };
  if (link.page) Object.assign(attrs, { type: link.page.type, id: link.page.id, url: link.url, kind: "post-type" });
  else Object.assign(attrs, { url: link.url, kind: "custom" });
  return `<!-- wp:navigation-link ${serializeAttributes(attrs)} /-->`;
}

/** Items (not freeform text) of the level a position lives in, and the index it names there. */
function locate(blocks: BlockNode[], position: string): { siblings: BlockNode[]; index: number } {
  if (!/^[1-9]\d*(\.[1-9]\d*)*$/.test(position)) throw new BlockEditError(`"${position}" is not a position.`);
  const steps = position.split(".").map(Number);
  const last = steps.pop()!;
  let siblings = blocks.filter((node) => node.name !== null);
  steps.forEach((step, depth) => {
    const parent = siblings[step - 1];
    if (parent?.name !== "core/navigation-submenu") {
      throw new BlockEditError(`There is no submenu at position ${steps.slice(0, depth + 1).join(".")}.`);
    }
    siblings = parent.children.filter((node) => node.name !== null);
  });
  return { siblings, index: last - 1 };
}

/** Removes the item at `position` with the line break before it. */
export function removeItem(content: string, position: string): string {
  const node = findBlock(
    parseBlocks(content).filter((n) => n.name !== null),
    position,
  );
  if (!node?.name) throw new BlockEditError(`There is no link at position ${position}.`);
  const before = content.slice(0, node.start);
  const trimmed = before.replace(/\n[ \t]*$/, "");
  return trimmed + content.slice(node.end);
}

/**
 * Inserts `markup` so that it ends up at `position` ("3": third item; one past the last item appends; omitted:
 * at the end of the top level). A submenu with no links yet takes a new link at "N.1".
 */
export function insertItem(content: string, markup: string, position?: string): string {
  const blocks = parseBlocks(content);
  const top = blocks.filter((node) => node.name !== null);
  if (!position) {
    const last = top.at(-1);
    return last ? `${content.slice(0, last.end)}\n${markup}${content.slice(last.end)}` : `${content}${markup}`;
  }
  const { siblings, index } = locate(blocks, position);
  const at = siblings[index];
  if (at) return `${content.slice(0, at.start)}${markup}\n${content.slice(at.start)}`;
  const previous = siblings[index - 1];
  if (previous) return `${content.slice(0, previous.end)}\n${markup}${content.slice(previous.end)}`;
  if (index !== 0) throw new BlockEditError(`Position ${position} is past the end of its list.`);
  // The first link of an empty submenu (or an empty navigation).
  const steps = position.split(".");
  if (steps.length === 1) return `${content}${markup}`;
  const parent = findBlock(
    blocks.filter((n) => n.name !== null),
    steps.slice(0, -1).join("."),
  )!;
  const source = content.slice(parent.start, parent.end);
  const opened = source.endsWith("/-->")
    ? `${source.replace(/\s*\/-->$/, " -->")}\n${markup}\n<!-- /wp:navigation-submenu -->`
    : source.replace(/(<!--\s+\/wp:navigation-submenu\s+-->)$/, `${markup}\n$1`);
  return content.slice(0, parent.start) + opened + content.slice(parent.end);
}

/**
 * Moves the item at `from` (as read now) so that it ends up at `to` afterwards: in "1, 2, 3, 4", moving 2 to 4
 * gives "1, 3, 4, 2"; a submenu named in `to` is named as read now ("2" → "4.1" lands first in the submenu at 4).
 */
export function moveItem(content: string, from: string, to: string): string {
  const node = findBlock(
    parseBlocks(content).filter((n) => n.name !== null),
    from,
  );
  if (!node?.name) throw new BlockEditError(`There is no link at position ${from}.`);
  if (to === from) throw new BlockEditError("The link is already at that position.");
  if (to.startsWith(`${from}.`)) throw new BlockEditError("A submenu cannot move into itself.");
  const markup = content.slice(node.start, node.end);
  const without = removeItem(content, from);
  // Positions after the removed item, on its level, shift up by one.
  const fromSteps = from.split(".").map(Number);
  const toSteps = to.split(".").map(Number);
  const depth = fromSteps.length - 1;
  const sameParent =
    toSteps.length > depth && fromSteps.slice(0, depth).every((step, index) => step === toSteps[index]);
  // Into a submenu that comes after the item on its level: that submenu moved up by one when the item left.
  if (sameParent && toSteps.length > fromSteps.length && toSteps[depth]! > fromSteps[depth]!) {
    toSteps[depth] = toSteps[depth]! - 1;
  }
  return insertItem(without, markup, toSteps.join("."));
}

/** Sets the label of the link or submenu at `position`, keeping its other attributes. */
export function renameItem(content: string, position: string, label: string): string {
  const node = findBlock(
    parseBlocks(content).filter((n) => n.name !== null),
    position,
  );
  if (!node || (node.name !== "core/navigation-link" && node.name !== "core/navigation-submenu")) {
    throw new BlockEditError(`There is no link or submenu at position ${position}.`);
  }
  const source = content.slice(node.start, node.end);
  const delimiter = /^<!--\s+wp:[a-z0-9_/-]+\s+(\{[\s\S]*?\}\s+)?(\/)?-->/.exec(source);
  if (!delimiter) throw new BlockEditError(`The link at position ${position} could not be read.`);
  const name = node.name.replace(/^core\//, "");
  const attrs = { ...(node.attrs ?? {}), label: escapeHtml(label) };
  const opening = `<!-- wp:${name} ${serializeAttributes(attrs)} ${delimiter[2] ? "/" : ""}-->`;
  return content.slice(0, node.start) + opening + source.slice(delimiter[0].length) + content.slice(node.end);
}
