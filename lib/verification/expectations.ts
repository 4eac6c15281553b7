/**
 * What a visitor should see after a change set was written, applied or undone: per item, which public page shows
 * it (the item's own page, or the home page for what every page shows) and what that page must now contain or no
 * longer contain. Pure: the states come from the change items (docs/verification.md).
 */
import { parseBlocks } from "@/lib/agent/blocks";
import { builderChanges } from "@/lib/builders/elementor-diff";
import { pageText, sourceForSearch } from "./page-text";

/** One item as it was and as it should now be (for an undo: the other way round). */
export type VerifiableItem = {
  ref: string;
  kind: string;
  title: string;
  from: Record<string, unknown> | null;
  to: Record<string, unknown> | null;
};

export type Expectation = {
  ref: string;
  title: string;
  /** Where a visitor sees it: the item's own page, or the home page for settings and design. */
  page: "item" | "home";
  /** Text (as a visitor reads it) that must be on the page. */
  present: string[];
  /** Text that must be gone (removed content long enough not to stand elsewhere on the page by chance). */
  absent: string[];
  /**
   * Earlier titles or names: a page may still list them elsewhere (a menu of other pages with the same title), so
   * they never fail a look; they only tell a stale page (a cache) from one that shows something else.
   */
  earlier?: string[];
  /** Raw values (link addresses, image sources, CSS values) that must appear in the page's source. */
  sourcePresent: string[];
  /** The page must no longer be public (unpublished, trashed, deleted). */
  gone?: boolean;
};

const VISIBLE = new Set(["publish"]);
const DESIGN_POST_KINDS = new Set(["navigation", "template", "template_part", "global_styles"]);
/** Options whose value a visitor reads on every page. */
const TEXT_OPTIONS = new Set(["option:blogname", "option:blogdescription"]);
/** Longest snippet we look for: long runs are more likely to be broken by the theme's own markup. */
const MAX_SNIPPET = 160;

const str = (value: unknown) => (typeof value === "string" ? value : "");
const isPublic = (state: Record<string, unknown> | null) =>
  !!state && VISIBLE.has(str(state.status)) && !str(state.password);

/** Visible text of the blocks that differ between two versions of block markup, as whole-block texts. */
export function changedBlockTexts(before: string, after: string): { removed: string[]; added: string[] } {
  const blocks = (content: string) =>
    parseBlocks(content)
      .map((block) => content.slice(block.start, block.end))
      .filter((source) => source.trim() !== "");
  const a = blocks(before);
  const b = blocks(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const texts = (sources: string[]) => sources.map((source) => pageText(source)).filter((text) => text.length >= 3);
  return { removed: texts(a.slice(start, endA)), added: texts(b.slice(start, endB)) };
}

/** Link addresses and media sources in markup, as they would appear in the page source. */
export function addresses(markup: string): string[] {
  const found = new Set<string>();
  for (const match of markup.matchAll(/\s(?:href|src|action)\s*=\s*("([^"]*)"|'([^']*)')/gi)) {
    const value = sourceForSearch(match[2] ?? match[3] ?? "").trim();
    if (value && !value.startsWith("#")) found.add(value);
  }
  return [...found];
}

/** Alt texts of the images in markup, as `alt="…"` would read in the page source (an image's words are there only). */
export function altTexts(markup: string): string[] {
  const found = new Set<string>();
  for (const match of markup.matchAll(/<img\b[^>]*\salt\s*=\s*("([^"]*)"|'([^']*)')/gi)) {
    const value = sourceForSearch(match[2] ?? match[3] ?? "").trim();
    if (value) found.add(`alt="${value}"`);
  }
  return [...found];
}

const snippet = (text: string) => (text.length > MAX_SNIPPET ? text.slice(0, MAX_SNIPPET).trim() : text);

/** Text present in `removed` that the new version no longer has anywhere (so its absence proves something). */
function trulyRemoved(removed: string[], allAfterText: string): string[] {
  return removed.filter((text) => !allAfterText.includes(text)).map(snippet);
}

function contentExpectations(from: string, to: string) {
  const { removed, added } = changedBlockTexts(from, to);
  const afterText = pageText(to);
  const newAddresses = addresses(to).filter((address) => !addresses(from).includes(address));
  const newAlts = altTexts(to).filter((alt) => !altTexts(from).includes(alt));
  const gone = trulyRemoved(removed, afterText);
  return {
    present: added.map(snippet),
    absent: gone.filter((text) => text.length >= MIN_ABSENT),
    earlier: gone.filter((text) => text.length < MIN_ABSENT),
    sourcePresent: [...newAddresses, ...newAlts],
  };
}

function titleExpectations(from: string, to: string) {
  const before = pageText(from);
  const after = pageText(to);
  if (before === after) return { present: [] as string[], earlier: [] as string[] };
  return { present: after ? [after] : [], earlier: before && !after.includes(before) ? [before] : [] };
}

/** Removed text shorter than this may well stand elsewhere on the page: it is not required to be gone. */
const MIN_ABSENT = 12;

/** Leaf string values of a styles/settings tree that changed (colours, sizes, font families). */
function changedLeaves(from: unknown, to: unknown, out: string[] = []): string[] {
  if (typeof to === "string") {
    if (to !== from && to.length >= 2 && !to.startsWith("var:")) out.push(to);
    return out;
  }
  if (to && typeof to === "object") {
    const previous = from && typeof from === "object" ? (from as Record<string, unknown>) : {};
    for (const [key, value] of Object.entries(to as Record<string, unknown>)) changedLeaves(previous[key], value, out);
  }
  return out;
}

/** CSS declarations (property: value) added by a change of custom CSS. */
function addedDeclarations(from: string, to: string): string[] {
  const declarations = (css: string) =>
    new Set([...css.matchAll(/([a-z-]+)\s*:\s*([^;{}]+)/gi)].map((m) => `${m[1]!.toLowerCase()}:${m[2]!.trim()}`));
  const before = declarations(from);
  return [...declarations(to)].filter((d) => !before.has(d)).map((d) => d.slice(d.indexOf(":") + 1));
}

export function expectationFor(item: VerifiableItem): Expectation | null {
  const { ref, title } = item;
  const from = item.from;
  const to = item.to;
  const base = { ref, title, present: [] as string[], absent: [] as string[], sourcePresent: [] as string[] };

  if (ref.startsWith("post:") && !DESIGN_POST_KINDS.has(item.kind)) {
    if (item.kind === "media") return null;
    const wasPublic = isPublic(from);
    const nowPublic = isPublic(to);
    if (!wasPublic && !nowPublic) return null; // drafts and private items: no visitor sees them either way
    if (!nowPublic) return { ...base, page: "item", gone: true };
    const fromForDiff = wasPublic ? from : null;
    const titles = titleExpectations(str(fromForDiff?.title), str(to?.title));
    const content = contentExpectations(str(fromForDiff?.content), str(to?.content));
    return {
      ...base,
      page: "item",
      present: [...titles.present, ...content.present],
      absent: content.absent,
      earlier: [...titles.earlier, ...content.earlier],
      sourcePresent: content.sourcePresent,
    };
  }
  if (ref.startsWith("elementor:")) return builderExpectation(item, base);
  if (TEXT_OPTIONS.has(ref)) {
    const titles = titleExpectations(str(from?.value), str(to?.value));
    return { ...base, page: "home", present: titles.present, earlier: titles.earlier };
  }
  if (ref.startsWith("custom_css:")) {
    return { ...base, page: "home", sourcePresent: addedDeclarations(str(from?.css), str(to?.css)) };
  }
  // Elementor's kit: its colours and fonts live in Elementor's CSS files, not in a page's source. The write clears
  // them site-wide and the live test reads the file (lib/agent/elementor-kit.test.ts); nothing to look for here.
  if (ref.startsWith("elementor_kit:")) return null;
  if (ref.startsWith("global_styles:") || item.kind === "global_styles") {
    const leaves = [...changedLeaves(from?.styles, to?.styles), ...changedLeaves(from?.settings, to?.settings)];
    return { ...base, page: "home", sourcePresent: leaves.filter((leaf) => /^#|\d/.test(leaf)).slice(0, 10) };
  }
  if (ref.startsWith("template_part:") || ref.startsWith("post:")) {
    // Template parts and navigation show on every page that uses them; the home page does.
    const content = contentExpectations(str(from?.content), str(to?.content));
    return { ...base, page: "home", ...content };
  }
  if (ref.startsWith("menu:")) {
    const names = (state: Record<string, unknown> | null) =>
      Array.isArray(state?.items) ? (state.items as Array<{ title?: string }>).map((i) => pageText(str(i.title))) : [];
    const before = names(from);
    const after = names(to);
    return {
      ...base,
      page: "home",
      present: after.filter((name) => name && !before.includes(name)),
      earlier: before.filter((name) => name && !after.some((a) => a.includes(name))),
    };
  }
  return null; // settings a page does not show (date format, posts per page): nothing to look for
}

/**
 * An Elementor page (`elementor:<id>`): the texts and addresses of the elements that changed, on the page itself;
 * nothing to look for while it is not public.
 */
function builderExpectation(
  item: VerifiableItem,
  base: Pick<Expectation, "ref" | "title" | "present" | "absent" | "sourcePresent">,
): Expectation | null {
  if (!isPublic(item.to)) return isPublic(item.from) ? { ...base, page: "item", gone: true } : null;
  const changes = builderChanges(str(item.from?.data), str(item.to?.data));
  const afterText = changes.texts.map((text) => pageText(text)).join(" ");
  const removed = trulyRemoved(
    changes.removed.map((text) => pageText(text)).filter((text) => text.length >= 3),
    afterText,
  );
  return {
    ...base,
    page: "item",
    present: changes.added.map((text) => snippet(pageText(text))).filter((text) => text.length >= 3),
    absent: removed.filter((text) => text.length >= MIN_ABSENT),
    earlier: removed.filter((text) => text.length < MIN_ABSENT),
    sourcePresent: changes.addresses.map((address) => sourceForSearch(address)),
  };
}
