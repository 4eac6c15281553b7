/**
 * An Elementor page as the agent reads it: its elements (containers, sections, columns, widgets) in order, each
 * with its id, type, place on the page ("Hero › Heading") and the settings a visitor sees (text, links, images,
 * button labels, list items). Read from `_elementor_data` exactly as stored, keeping every value's offsets so an
 * edit can change one value and nothing else (elementor-edit.ts).
 */
import { entryOf, type JsonNode, nodeValue, parseWithSpans } from "./json-spans";
import { type JsonStyle, styleOf } from "./php-json";

export type ElementorElement = {
  id: string;
  elType: string;
  widgetType?: string;
  /** The element's object in the stored JSON. */
  node: JsonNode & { type: "object" };
  settings: JsonNode | undefined;
  /** The `elements` array (containers, sections and columns hold their children there). */
  childrenNode: (JsonNode & { type: "array" }) | undefined;
  children: ElementorElement[];
  parent: ElementorElement | null;
  /** Its position among its siblings, from 0. */
  index: number;
  /** "Hero › Heading": how the owner finds it on the page. */
  path: string;
  label: string;
};

export type ElementorPage = {
  raw: string;
  root: JsonNode & { type: "array" };
  elements: ElementorElement[];
  byId: Map<string, ElementorElement>;
  style: JsonStyle;
};

type WidgetWords = { label: string; settings?: string[] };

/** The common widgets: what a person calls them, and their settings a visitor sees (in the editor's order). */
export const WIDGETS: Record<string, WidgetWords> = {
  heading: { label: "Heading", settings: ["title", "link"] },
  "text-editor": { label: "Text", settings: ["editor"] },
  button: { label: "Button", settings: ["text", "link"] },
  image: { label: "Image", settings: ["image", "caption", "link"] },
  "icon-list": { label: "Icon list", settings: ["icon_list"] },
  "icon-box": { label: "Icon box", settings: ["title_text", "description_text", "link"] },
  "image-box": { label: "Image box", settings: ["image", "title_text", "description_text", "link"] },
  testimonial: {
    label: "Testimonial",
    settings: ["testimonial_content", "testimonial_name", "testimonial_job", "testimonial_image"],
  },
  counter: { label: "Counter", settings: ["title", "ending_number", "prefix", "suffix"] },
  progress: { label: "Progress bar", settings: ["title", "inner_text"] },
  accordion: { label: "Accordion", settings: ["tabs"] },
  toggle: { label: "Toggle", settings: ["tabs"] },
  tabs: { label: "Tabs", settings: ["tabs"] },
  alert: { label: "Alert", settings: ["alert_title", "alert_description"] },
  html: { label: "HTML", settings: ["html"] },
  video: { label: "Video", settings: ["youtube_url", "vimeo_url", "hosted_url"] },
  google_maps: { label: "Map", settings: ["address"] },
  "social-icons": { label: "Social icons", settings: ["social_icon_list"] },
  "star-rating": { label: "Rating", settings: ["title"] },
  spacer: { label: "Spacer", settings: [] },
  divider: { label: "Divider", settings: [] },
  "e-heading": { label: "Heading", settings: ["title", "link"] },
  "e-paragraph": { label: "Paragraph", settings: ["paragraph", "link"] },
  "e-button": { label: "Button", settings: ["text", "link"] },
  "e-image": { label: "Image", settings: ["image", "link"] },
};

/** Settings of widgets we do not list that are probably visible: by their names. */
const VISIBLE_NAME = /(title|text|content|description|editor|caption|label|html|heading|paragraph|link|url|image|name)/;
/** Parts of a setting that are not what a visitor reads. */
const HIDDEN_LEAF = new Set([
  "is_external",
  "nofollow",
  "custom_attributes",
  "$$type",
  "source",
  "_id",
  "size",
  "unit",
]);

export class ElementorDataError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ElementorDataError";
  }
}

const str = (node: JsonNode | undefined) => (node?.type === "string" ? node.value : undefined);

function labelOf(
  element: Pick<ElementorElement, "elType" | "widgetType" | "settings">,
  siblings: string[],
  index: number,
) {
  const title = str(entryOf(element.settings, "_title"))?.trim();
  if (title) return title.slice(0, 40);
  const base =
    element.elType === "widget"
      ? (WIDGETS[element.widgetType ?? ""]?.label ?? (element.widgetType ?? "Widget").replace(/[-_]/g, " "))
      : element.elType === "column"
        ? "Column"
        : "Section";
  const same = siblings.filter((s) => s === base).length;
  const position = siblings.slice(0, index).filter((s) => s === base).length + 1;
  return same > 1 ? `${base} ${position}` : base;
}

function baseLabel(node: JsonNode) {
  const elType = str(entryOf(node, "elType")) ?? "";
  const widgetType = str(entryOf(node, "widgetType"));
  if (str(entryOf(entryOf(node, "settings"), "_title"))?.trim()) return `#${elType}`;
  return elType === "widget"
    ? (WIDGETS[widgetType ?? ""]?.label ?? widgetType ?? "")
    : elType === "column"
      ? "Column"
      : "Section";
}

function readElements(
  list: JsonNode | undefined,
  parent: ElementorElement | null,
  byId: Map<string, ElementorElement>,
) {
  if (list?.type !== "array") return [];
  const bases = list.items.map(baseLabel);
  return list.items.map((node, index): ElementorElement => {
    if (node.type !== "object") throw new ElementorDataError("An element is not an object.");
    const id = str(entryOf(node, "id"));
    const elType = str(entryOf(node, "elType"));
    if (!id || !elType) throw new ElementorDataError("An element has no id or elType.");
    const childrenNode = entryOf(node, "elements");
    const element: ElementorElement = {
      id,
      elType,
      widgetType: str(entryOf(node, "widgetType")),
      node,
      settings: entryOf(node, "settings"),
      childrenNode: childrenNode?.type === "array" ? childrenNode : undefined,
      children: [],
      parent,
      index,
      path: "",
      label: "",
    };
    element.label = labelOf(element, bases, index);
    element.path = parent ? `${parent.path} › ${element.label}` : element.label;
    byId.set(id, element);
    element.children = readElements(childrenNode, element, byId);
    return element;
  });
}

/** Reads a page's `_elementor_data`; throws ElementorDataError when it is not an Elementor element list. */
export function readElementorPage(raw: string): ElementorPage {
  let root: JsonNode;
  try {
    root = parseWithSpans(raw);
  } catch (error) {
    throw new ElementorDataError(`The page's Elementor data is not JSON (${(error as Error).message}).`);
  }
  if (root.type !== "array") throw new ElementorDataError("The page's Elementor data is not a list of elements.");
  const byId = new Map<string, ElementorElement>();
  const elements = readElements(root, null, byId);
  return { raw, root, elements, byId, style: styleOf(raw) };
}

/** The names of the settings of an element a visitor sees. */
export function visibleSettingNames(element: ElementorElement): string[] {
  const known = element.widgetType ? WIDGETS[element.widgetType]?.settings : undefined;
  if (known) return known;
  if (element.elType !== "widget" || element.settings?.type !== "object") return [];
  return element.settings.entries
    .map((entry) => entry.key)
    .filter((key) => !key.startsWith("_") && VISIBLE_NAME.test(key));
}

/** Leaves (strings and ids) under a setting, by dotted path: "link.url", "icon_list.0.text". */
function leaves(node: JsonNode, path: string, out: Array<[string, string | number]>, depth = 0) {
  if (node.type === "string") {
    if (node.value !== "") out.push([path, node.value]);
  } else if (node.type === "number") {
    if (path.endsWith(".id")) out.push([path, node.value]);
  } else if (depth < 3 && node.type === "object") {
    for (const entry of node.entries) {
      if (!HIDDEN_LEAF.has(entry.key)) leaves(entry.value, `${path}.${entry.key}`, out, depth + 1);
    }
  } else if (depth < 3 && node.type === "array") {
    node.items.forEach((item, index) => {
      leaves(item, `${path}.${index}`, out, depth + 1);
    });
  }
  return out;
}

/** The visible settings of an element as [dotted path, value] pairs. */
export function visibleSettings(element: ElementorElement): Array<[string, string | number]> {
  const out: Array<[string, string | number]> = [];
  for (const name of visibleSettingNames(element)) {
    const node = entryOf(element.settings, name);
    if (node) leaves(node, name, out);
  }
  return out;
}

/** The value at a dotted setting path, or undefined. */
export function settingAt(element: ElementorElement, setting: string): unknown {
  let node: JsonNode | undefined = element.settings;
  for (const part of setting.split(".")) {
    if (node?.type === "array" && /^\d+$/.test(part)) node = node.items[Number(part)];
    else node = entryOf(node, part);
  }
  return node ? nodeValue(node) : undefined;
}

/** Text as a visitor reads it: markup removed, spaces folded. */
export const plainText = (value: string) =>
  value
    .replace(/<[^>]*>/g, " ")
    .replace(/&nbsp;/g, " ")
    .replace(/\s+/g, " ")
    .trim();

const CLIP = 160;
const clipped = (value: string) => (value.length > CLIP ? `${value.slice(0, CLIP)}…` : value);

/**
 * The page as compact lines for the model: one per element, indented by depth, with its id, type and visible
 * settings (long text clipped; HTML shown as its text). A few tokens per widget, so a whole page fits a step.
 */
export function outlineOf(page: ElementorPage): string {
  const lines: string[] = [];
  const walk = (elements: ElementorElement[], depth: number) => {
    for (const element of elements) {
      const kind = element.elType === "widget" ? (element.widgetType ?? "widget") : element.elType;
      const title = element.elType === "widget" ? "" : ` "${element.label}"`;
      const settings = visibleSettings(element)
        .map(
          ([path, value]) => `${path}=${JSON.stringify(typeof value === "string" ? clipped(plainText(value)) : value)}`,
        )
        .join(" ");
      lines.push(`${"  ".repeat(depth)}[${element.id}] ${kind}${title}${settings ? ` ${settings}` : ""}`);
      walk(element.children, depth + 1);
    }
  };
  walk(page.elements, 0);
  return lines.join("\n");
}
