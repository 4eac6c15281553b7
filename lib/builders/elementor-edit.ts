/**
 * Edits of an Elementor page by element id: set a setting (text, link, image, a list item's field), add, remove,
 * duplicate or move an element in its container. Each edit changes the stored JSON only where it must (the value's
 * span, the element's span), in the page's own JSON style, so every other byte stays as Elementor wrote it
 * (docs/page-builders.md). Each edit also gives the card's row: "Hero › Heading: old → new".
 */
import { randomBytes } from "node:crypto";
import {
  type ElementorElement,
  type ElementorPage,
  plainText,
  readElementorPage,
  settingAt,
  visibleSettings,
} from "./elementor-tree";
import { entryOf, type JsonNode, parseWithSpans, splice } from "./json-spans";
import { encodeString, encodeValue } from "./php-json";

export type BuilderEdit =
  | { op: "set"; elementId: string; setting: string; value: string | number | boolean }
  | { op: "remove"; elementId: string }
  | { op: "duplicate"; elementId: string }
  | { op: "move"; elementId: string; to?: string; position: number }
  /** A new widget in container `to` (`page`: the page's top level); `alias` names it for the edits after it. */
  | { op: "add"; alias: string; to: string; position?: number; widgetType: string; settings?: Record<string, unknown> };

/** One row of the card (API.md, "Page builders"). */
export type BuilderRow = {
  path: string;
  elementId: string;
  widgetType: string;
  setting: string;
  before: string | number | boolean | null;
  after: string | number | boolean | null;
};

export class BuilderEditError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BuilderEditError";
  }
}

const SETTING_PATH = /^[A-Za-z0-9_$-]{1,80}(\.[A-Za-z0-9_$-]{1,80}){0,4}$/;

const typeOf = (element: ElementorElement) =>
  element.elType === "widget" ? (element.widgetType ?? "widget") : element.elType;

function find(page: ElementorPage, id: string): ElementorElement {
  const element = page.byId.get(id);
  if (!element) throw new BuilderEditError(`No element ${id} on this page; read the page again for its ids.`);
  return element;
}

/** A short description of an element for a row: its type and first visible text. */
function describeElement(element: ElementorElement): string {
  const first = visibleSettings(element).find(([, value]) => typeof value === "string");
  const text = first ? plainText(String(first[1])).slice(0, 80) : "";
  return text ? `${element.label} “${text}”` : element.label;
}

/** The new JSON for a value at a path below `node` whose first `from` parts are missing. */
function nested(parts: string[], value: unknown): unknown {
  return parts.reduceRight<unknown>((inner, part) => ({ [part]: inner }), value);
}

function setSetting(page: ElementorPage, edit: Extract<BuilderEdit, { op: "set" }>): [string, BuilderRow] {
  if (!SETTING_PATH.test(edit.setting)) throw new BuilderEditError(`"${edit.setting}" is not a setting path.`);
  const element = find(page, edit.elementId);
  const parts = edit.setting.split(".");
  const before = settingAt(element, edit.setting);
  if (before !== undefined && before !== null && typeof before === "object")
    throw new BuilderEditError(
      `${edit.setting} holds several values; set one of them (for example ${edit.setting}.url).`,
    );
  const row: BuilderRow = {
    path: element.path,
    elementId: element.id,
    widgetType: typeOf(element),
    setting: edit.setting,
    before: (before as BuilderRow["before"]) ?? null,
    after: edit.value,
  };
  if (!element.settings) throw new BuilderEditError(`Element ${element.id} has no settings.`);
  let node: JsonNode = element.settings;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const child: JsonNode | undefined =
      node.type === "array" && /^\d+$/.test(part) ? node.items[Number(part)] : entryOf(node, part);
    if (child) {
      node = child;
      continue;
    }
    if (node.type === "array" && node.items.length === 0) {
      // PHP writes an empty settings object as [].
      const insert = encodeValue(nested(parts.slice(i), edit.value), page.style);
      return [splice(page.raw, [{ start: node.start, end: node.end, insert }]), row];
    }
    if (node.type !== "object") throw new BuilderEditError(`${edit.setting} does not exist on element ${element.id}.`);
    const value = encodeValue(nested(parts.slice(i + 1), edit.value), page.style);
    const entry = `${node.entries.length ? "," : ""}${encodeString(part, page.style)}:${value}`;
    return [splice(page.raw, [{ start: node.end - 1, end: node.end - 1, insert: entry }]), row];
  }
  return [splice(page.raw, [{ start: node.start, end: node.end, insert: encodeValue(edit.value, page.style) }]), row];
}

/** Text without the element at `element`'s place (and the comma that joined it to a neighbour). */
function cut(raw: string, list: JsonNode & { type: "array" }, index: number): string {
  const item = list.items[index]!;
  if (list.items.length === 1) return splice(raw, [{ start: list.start + 1, end: list.end - 1, insert: "" }]);
  if (index > 0) return splice(raw, [{ start: list.items[index - 1]!.end, end: item.end, insert: "" }]);
  return splice(raw, [{ start: item.start, end: list.items[1]!.start, insert: "" }]);
}

/** Text with `json` placed at `position` in a list. */
function place(raw: string, list: JsonNode & { type: "array" }, position: number, json: string): string {
  const at = Math.max(0, Math.min(position, list.items.length));
  if (list.items.length === 0) return splice(raw, [{ start: list.start + 1, end: list.end - 1, insert: json }]);
  if (at === list.items.length)
    return splice(raw, [{ start: list.items[at - 1]!.end, end: list.items[at - 1]!.end, insert: `,${json}` }]);
  const next = list.items[at]!;
  return splice(raw, [{ start: next.start, end: next.start, insert: `${json},` }]);
}

function newId(page: ElementorPage, taken: Set<string>): string {
  for (;;) {
    const id = randomBytes(4).toString("hex").slice(0, 7);
    if (!page.byId.has(id) && !taken.has(id)) {
      taken.add(id);
      return id;
    }
  }
}

/** The element's JSON with new ids for it and every element inside it. */
function copyWithNewIds(page: ElementorPage, element: ElementorElement): { json: string; id: string } {
  const source = page.raw.slice(element.node.start, element.node.end);
  const copy = parseWithSpans(source);
  const taken = new Set<string>();
  const edits: Array<{ start: number; end: number; insert: string }> = [];
  let first = "";
  const walk = (node: JsonNode) => {
    if (node.type !== "object") return;
    const id = entryOf(node, "id");
    if (id && entryOf(node, "elType")) {
      const fresh = newId(page, taken);
      first ||= fresh;
      edits.push({ start: id.start, end: id.end, insert: encodeString(fresh, page.style) });
    }
    const children = entryOf(node, "elements");
    if (children?.type === "array") children.items.forEach(walk);
  };
  walk(copy);
  return { json: splice(source, edits), id: first };
}

/** Which element types a container holds (Elementor's own rules). */
function refusePlacement(elType: string, container: ElementorElement | null) {
  const holder = container?.elType ?? "page";
  const allowed: Record<string, string[]> = {
    page: ["container", "section"],
    section: ["column"],
    column: ["widget", "section", "container"],
    container: ["widget", "container"],
  };
  if (!(allowed[holder] ?? []).includes(elType))
    throw new BuilderEditError(`A ${elType} cannot be placed in a ${holder}; choose a container.`);
}

function listOf(page: ElementorPage, container: ElementorElement | null): JsonNode & { type: "array" } {
  if (!container) return page.root;
  if (!container.childrenNode) throw new BuilderEditError(`Element ${container.id} holds no elements.`);
  return container.childrenNode;
}

const structural = (element: ElementorElement, before: string | null, after: string | null): BuilderRow => ({
  path: element.path,
  elementId: element.id,
  widgetType: typeOf(element),
  setting: "",
  before,
  after,
});

function removeElement(page: ElementorPage, elementId: string): [string, BuilderRow] {
  const element = find(page, elementId);
  const raw = cut(page.raw, listOf(page, element.parent), element.index);
  return [raw, structural(element, describeElement(element), "(removed)")];
}

function duplicateElement(page: ElementorPage, elementId: string): [string, BuilderRow] {
  const element = find(page, elementId);
  const { json, id } = copyWithNewIds(page, element);
  const raw = place(page.raw, listOf(page, element.parent), element.index + 1, json);
  return [raw, structural(element, describeElement(element), `a copy (${id}) right after it`)];
}

function moveElement(page: ElementorPage, edit: Extract<BuilderEdit, { op: "move" }>): [string, BuilderRow] {
  const element = find(page, edit.elementId);
  const target = edit.to === undefined ? element.parent : edit.to === "page" ? null : find(page, edit.to);
  refusePlacement(element.elType, target);
  for (let up = target; up; up = up.parent) {
    if (up.id === element.id) throw new BuilderEditError("An element cannot be moved into itself.");
  }
  const json = page.raw.slice(element.node.start, element.node.end);
  const without = readElementorPage(cut(page.raw, listOf(page, element.parent), element.index));
  const holder = target ? find(without, target.id) : null;
  const raw = place(without.raw, listOf(without, holder), edit.position, json);
  const where = (container: ElementorElement | null, position: number) =>
    `${container ? container.path : "the page"}, position ${position + 1}`;
  return [raw, structural(element, where(element.parent, element.index), where(target, edit.position))];
}

function addElement(page: ElementorPage, edit: Extract<BuilderEdit, { op: "add" }>, id: string): [string, BuilderRow] {
  const container = edit.to === "page" ? null : find(page, edit.to);
  refusePlacement("widget", container);
  const element = { id, elType: "widget", settings: edit.settings ?? {}, elements: [], widgetType: edit.widgetType };
  const list = listOf(page, container);
  const position = edit.position ?? list.items.length;
  const raw = place(page.raw, list, position, encodeValue(element, page.style));
  const added = readElementorPage(raw).byId.get(id)!;
  return [raw, structural(added, null, `${describeElement(added)} (new, ${id})`)];
}

/**
 * Applies edits in order, each to the page the previous one left. Returns the new stored JSON and a row per edit
 * that changes something. Throws BuilderEditError for an edit that cannot be made (unknown id, a widget at the
 * page's top level...).
 */
export function applyEdits(raw: string, edits: BuilderEdit[]): { raw: string; rows: BuilderRow[] } {
  let current = raw;
  const rows: BuilderRow[] = [];
  const aliases = new Map<string, string>();
  const real = (id: string) => aliases.get(id) ?? id;
  for (const edit of edits) {
    const page = readElementorPage(current);
    let next: string;
    let row: BuilderRow;
    if (edit.op === "add") {
      if (page.byId.has(edit.alias) || aliases.has(edit.alias))
        throw new BuilderEditError(`${edit.alias} is already an element id; name the new widget another way.`);
      const id = newId(page, new Set());
      aliases.set(edit.alias, id);
      [next, row] = addElement(page, { ...edit, to: real(edit.to) }, id);
    } else if (edit.op === "set") [next, row] = setSetting(page, { ...edit, elementId: real(edit.elementId) });
    else if (edit.op === "move")
      [next, row] = moveElement(page, { ...edit, elementId: real(edit.elementId), to: edit.to && real(edit.to) });
    else if (edit.op === "remove") [next, row] = removeElement(page, real(edit.elementId));
    else [next, row] = duplicateElement(page, real(edit.elementId));
    if (next !== current) rows.push(row);
    current = next;
  }
  return { raw: current, rows };
}
