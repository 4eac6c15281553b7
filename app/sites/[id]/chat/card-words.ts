/**
 * The words a chat card uses for what it acts on (pure, so the chat tests can check them with the items a real turn
 * streamed): the target in its heading, from the input the model gave and the change items the call made, and a
 * block of page content as a visitor (or a screen reader) takes it in.
 */

/** Operations whose `id` is not a page's or post's: their card names what it is instead. */
const ID_KINDS: Record<string, string> = {
  update_media: "media",
  view_image: "media",
  save_term: "term",
  change_navigation: "navigation",
};

const TARGET_WORDS: Record<string, string> = {
  media: "media item",
  term: "category or tag",
  navigation: "navigation menu",
};

/** The part of a change item the heading reads: which site object it is (`post:<id>`), of what kind, and its name. */
export type TargetItem = { kind: string; title: string; targetId?: string };

/**
 * "page 12", "media item 5", "menu 3", and the name of the item it is when the call's change names it ("front.jpg"):
 * the kind comes from the change item itself where there is one (an attachment is `post:<id>` like a page).
 */
export function describeTarget(
  operation: string,
  input: unknown,
  items: readonly TargetItem[] = [],
): { target: string; name?: string } | undefined {
  if (!input || typeof input !== "object") return undefined;
  const value: { type?: unknown; id?: unknown; menuId?: unknown } = input;
  if (typeof value.id === "number") {
    const item = items.find((i) => i.targetId === `post:${value.id}`);
    const kind = item?.kind ?? ID_KINDS[operation] ?? (typeof value.type === "string" ? value.type : "page");
    const target = `${TARGET_WORDS[kind] ?? kind} ${value.id}`;
    return item?.title ? { target, name: item.title } : { target };
  }
  if (typeof value.menuId === "number") return { target: `menu ${value.menuId}` };
  return undefined;
}

/** The alt text of the first image in a block's markup (undefined when it has no image). */
function imageAlt(source: string): string | undefined {
  const img = /<img\b[^>]*>/i.exec(source)?.[0];
  if (!img) return undefined;
  return (
    /\balt\s*=\s*(?:"([^"]*)"|'([^']*)')/i
      .exec(img)
      ?.slice(1)
      .find((v) => v !== undefined) ?? ""
  );
}

/** An attribute's entities as the reader hears them (`&amp;` is "&"). */
const decode = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#0?39;|&apos;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

/**
 * A block's text as a visitor reads it (markup and block comments removed); an image as its alt text says it, since
 * that is what a screen reader reads out (and what the owner changed when only the alt text differs).
 */
export function blockText(source: string, name: string | null): string {
  const alt = imageAlt(source);
  const text = source
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/&nbsp;/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  const picture = alt === undefined ? "" : alt ? `[image: “${decode(alt)}”]` : "[image without alt text]";
  const described = [picture, text].filter(Boolean).join(" ");
  return described || `(${(name ?? "html").replace(/^core\//, "")} without text)`;
}
