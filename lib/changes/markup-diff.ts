/**
 * What a change of markup does that a visitor could notice besides its words (API.md v1.2, "Exactness"): changed
 * link addresses, image and embed sources, form targets, new or removed iframes, forms, scripts and styles, block
 * settings and shortcodes. When bytes differ and none of that (nor the text) explains it, the raw markup is shown
 * side by side: every byte that is written is shown. Pure and client-safe (the approval card uses it).
 */

export type MarkupChange =
  | { kind: "attribute"; element: string; name: string; before: string | null; after: string | null }
  | { kind: "element"; element: string; change: "added" | "removed"; detail: string }
  | { kind: "block"; block: string; name: string; before: string | null; after: string | null }
  | { kind: "shortcode"; change: "added" | "removed"; text: string };

/** Attributes whose value a visitor meets: where a link goes, what loads, where a form sends. */
export const NOTABLE_ATTRIBUTES = ["href", "src", "srcset", "action", "formaction", "target", "rel", "poster", "data"];
/** Elements named when they appear or go: they load, run or collect something. */
export const NOTABLE_ELEMENTS = [
  "a",
  "iframe",
  "form",
  "input",
  "button",
  "script",
  "style",
  "img",
  "video",
  "audio",
  "object",
  "embed",
  "link",
  "meta",
];

type Tag = { name: string; attributes: Map<string, string> };

const TAG = /<([a-zA-Z][\w:-]*)((?:\s+(?:"[^"]*"|'[^']*'|[^\s>"'])*)*)\s*\/?>/g;
const ATTRIBUTE = /([^\s=/>"']+)(?:\s*=\s*("([^"]*)"|'([^']*)'|([^\s>"']+)))?/g;
const BLOCK = /<!--\s+wp:([a-z][a-z0-9_-]*(?:\/[a-z][a-z0-9_-]*)?)\s+(\{[\s\S]*?\})?\s*\/?-->/g;
const SHORTCODE = /\[(\/?[a-zA-Z][\w-]*)([^\]]*)\]/g;

const decode = (value: string) =>
  value
    .replace(/&#0*38;|&amp;/gi, "&")
    .replace(/&quot;|&#0*34;/gi, '"')
    .replace(/&#0*39;|&apos;/gi, "'")
    .replace(/&lt;/gi, "<")
    .replace(/&gt;/gi, ">");

/** Start tags in order, without comments (block delimiters are read on their own). */
export function tagsOf(markup: string): Tag[] {
  const withoutComments = markup.replace(/<!--[\s\S]*?-->/g, "");
  const tags: Tag[] = [];
  for (const match of withoutComments.matchAll(TAG)) {
    const attributes = new Map<string, string>();
    for (const attribute of (match[2] ?? "").matchAll(ATTRIBUTE)) {
      const name = attribute[1]!.toLowerCase();
      attributes.set(name, decode(attribute[3] ?? attribute[4] ?? attribute[5] ?? ""));
    }
    tags.push({ name: match[1]!.toLowerCase(), attributes });
  }
  return tags;
}

/** Longest common subsequence of two lists by a key: pairs of indexes. */
function align<T>(a: T[], b: T[], key: (item: T) => string): Array<[number | null, number | null]> {
  const n = a.length;
  const m = b.length;
  const table = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i]![j] =
        key(a[i]!) === key(b[j]!) ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
    }
  }
  const pairs: Array<[number | null, number | null]> = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (key(a[i]!) === key(b[j]!)) pairs.push([i++, j++]);
    else if (table[i + 1]![j]! >= table[i]![j + 1]!) pairs.push([i++, null]);
    else pairs.push([null, j++]);
  }
  while (i < n) pairs.push([i++, null]);
  while (j < m) pairs.push([null, j++]);
  return pairs;
}

const describeTag = (tag: Tag) => {
  const where = NOTABLE_ATTRIBUTES.map((name) => tag.attributes.get(name)).find((value) => value);
  return where ? `<${tag.name}> ${where}` : `<${tag.name}>`;
};

function tagChanges(before: string, after: string): MarkupChange[] {
  const a = tagsOf(before);
  const b = tagsOf(after);
  const out: MarkupChange[] = [];
  for (const [i, j] of align(a, b, (tag) => tag.name)) {
    const old = i === null ? undefined : a[i];
    const next = j === null ? undefined : b[j];
    if (old && next) {
      const names = new Set([...old.attributes.keys(), ...next.attributes.keys()]);
      for (const name of names) {
        const notable = NOTABLE_ATTRIBUTES.includes(name) || name.startsWith("on");
        const was = old.attributes.get(name) ?? null;
        const now = next.attributes.get(name) ?? null;
        if (notable && was !== now) out.push({ kind: "attribute", element: next.name, name, before: was, after: now });
      }
    } else if (old && NOTABLE_ELEMENTS.includes(old.name)) {
      out.push({ kind: "element", element: old.name, change: "removed", detail: describeTag(old) });
    } else if (next && NOTABLE_ELEMENTS.includes(next.name)) {
      out.push({ kind: "element", element: next.name, change: "added", detail: describeTag(next) });
    } else if (next && [...next.attributes.keys()].some((name) => name.startsWith("on"))) {
      out.push({ kind: "element", element: next.name, change: "added", detail: describeTag(next) });
    }
  }
  return out;
}

type BlockDelimiter = { name: string; attributes: Record<string, unknown> };

function blocksOf(markup: string): BlockDelimiter[] {
  const found: BlockDelimiter[] = [];
  for (const match of markup.matchAll(BLOCK)) {
    let attributes: Record<string, unknown> = {};
    try {
      attributes = match[2] ? (JSON.parse(match[2]) as Record<string, unknown>) : {};
    } catch {
      attributes = { "(unreadable settings)": match[2] };
    }
    found.push({ name: match[1]!, attributes });
  }
  return found;
}

const show = (value: unknown) =>
  value === undefined ? null : typeof value === "string" ? value : JSON.stringify(value);

function blockChanges(before: string, after: string): MarkupChange[] {
  const a = blocksOf(before);
  const b = blocksOf(after);
  const out: MarkupChange[] = [];
  for (const [i, j] of align(a, b, (block) => block.name)) {
    if (i === null || j === null) continue; // a block added or removed shows as its own row of the diff
    const old = a[i]!;
    const next = b[j]!;
    for (const name of new Set([...Object.keys(old.attributes), ...Object.keys(next.attributes)])) {
      const was = show(old.attributes[name]);
      const now = show(next.attributes[name]);
      if (was !== now)
        out.push({ kind: "block", block: next.name.replace(/^core\//, ""), name, before: was, after: now });
    }
  }
  return out;
}

function shortcodeChanges(before: string, after: string): MarkupChange[] {
  const list = (text: string) => [...text.replace(/<!--[\s\S]*?-->/g, "").matchAll(SHORTCODE)].map((m) => m[0]);
  const a = list(before);
  const b = list(after);
  const out: MarkupChange[] = [];
  for (const [i, j] of align(a, b, (code) => code)) {
    if (i === null) out.push({ kind: "shortcode", change: "added", text: b[j!]! });
    if (j === null) out.push({ kind: "shortcode", change: "removed", text: a[i!]! });
  }
  return out;
}

/** Every change of this markup a visitor could notice besides its words. */
export function markupChanges(before: string, after: string): MarkupChange[] {
  if (before === after) return [];
  return [...tagChanges(before, after), ...blockChanges(before, after), ...shortcodeChanges(before, after)];
}

/** A sentence for one change, in the owner's words. */
export function describeChange(change: MarkupChange): string {
  const element: Record<string, string> = {
    a: "Link",
    img: "Image",
    iframe: "Embedded frame",
    form: "Form",
    input: "Form field",
    button: "Button",
    script: "Script",
    style: "Style sheet",
    video: "Video",
    audio: "Audio",
    object: "Embedded object",
    embed: "Embedded content",
    link: "Linked resource",
    meta: "Page metadata",
  };
  const attribute: Record<string, string> = {
    href: "address",
    src: "source",
    srcset: "image sources",
    action: "sends to",
    formaction: "sends to",
    target: "opens in",
    rel: "link relation",
    poster: "poster image",
    data: "data source",
  };
  if (change.kind === "attribute") {
    const what = `${element[change.element] ?? `<${change.element}>`} ${attribute[change.name] ?? change.name}`;
    if (change.before === null) return `${what} added: ${change.after}`;
    if (change.after === null) return `${what} removed (was ${change.before})`;
    return `${what}: ${change.before} → ${change.after}`;
  }
  if (change.kind === "element") {
    return `${element[change.element] ?? "Element"} ${change.change}: ${change.detail}`;
  }
  if (change.kind === "block") {
    const was = change.before ?? "(not set)";
    const now = change.after ?? "(not set)";
    return `Block setting “${change.name}” of ${change.block}: ${was} → ${now}`;
  }
  return `Shortcode ${change.change}: ${change.text}`;
}
