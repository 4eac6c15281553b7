/**
 * An image's alt text and caption where published content shows it (issue 35): WordPress keeps both in each image
 * block (`<img alt>`, `<figcaption>`), not only on the attachment, so a change to the attachment alone never
 * reaches visitors. This rewrites the image blocks of one attachment in a post's content the way the block editor
 * saves them, leaving every other byte as it was.
 */
import { type BlockNode, parseBlocks } from "./blocks";

export type ShownText = { alt?: string; caption?: string };

const escapeAttribute = (value: string) =>
  value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** Every `core/image` block of this attachment, at any depth (a gallery's images, a column's). */
function imageBlocks(nodes: BlockNode[], attachmentId: number): BlockNode[] {
  return nodes.flatMap((node) => [
    ...(node.name === "core/image" && Number(node.attrs?.id) === attachmentId ? [node] : []),
    ...imageBlocks(node.children, attachmentId),
  ]);
}

const ATTRIBUTE = /([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?/g;

/**
 * The `<img>` tag with its alt attribute set, written as WordPress's kses writes a tag (each attribute
 * `name="value"`, ` />` at the end): the plugin refuses a changed tag that the site's filter would store otherwise.
 */
function withAlt(img: string, alt: string): string {
  const inner = img.replace(/^<img\b/i, "").replace(/\/?>$/, "");
  const attributes: Array<[string, string]> = [];
  for (const [, name, double, single, bare] of inner.matchAll(ATTRIBUTE)) {
    if (name) attributes.push([name.toLowerCase(), double ?? single ?? bare ?? ""]);
  }
  const at = attributes.findIndex(([name]) => name === "alt");
  if (at >= 0) attributes[at] = ["alt", escapeAttribute(alt)];
  else attributes.splice(Math.min(1, attributes.length), 0, ["alt", escapeAttribute(alt)]);
  return `<img ${attributes.map(([name, value]) => `${name}="${value}"`).join(" ")} />`;
}

/** The block's figure with its caption set: replaced, added before `</figure>`, or removed when empty. */
function withCaption(block: string, caption: string): string {
  const existing = /<figcaption\b[^>]*>[\s\S]*?<\/figcaption>/i;
  if (caption === "") return block.replace(existing, "");
  if (existing.test(block))
    return block.replace(existing, (tag) =>
      tag.replace(/(<figcaption\b[^>]*>)[\s\S]*?(<\/figcaption>)/i, `$1${caption}$2`),
    );
  return block.replace(/<\/figure>/i, `<figcaption class="wp-element-caption">${caption}</figcaption></figure>`);
}

function rewriteBlock(block: string, attachmentId: number, text: ShownText): string {
  let out = block;
  if (text.alt !== undefined) {
    const ownImage = new RegExp(`<img\\b[^>]*\\bwp-image-${attachmentId}\\b[^>]*>`, "i");
    const img = ownImage.exec(out)?.[0] ?? /<img\b[^>]*>/i.exec(out)?.[0];
    if (img) out = out.replace(img, withAlt(img, text.alt));
  }
  if (text.caption !== undefined) out = withCaption(out, text.caption);
  return out;
}

/** The content with this attachment's image blocks showing `text`; the same string when none shows it. */
export function rewriteImageBlocks(content: string, attachmentId: number, text: ShownText): string {
  const blocks = imageBlocks(parseBlocks(content), attachmentId).sort((a, b) => b.start - a.start);
  let out = content;
  for (const block of blocks) {
    out =
      out.slice(0, block.start) +
      rewriteBlock(out.slice(block.start, block.end), attachmentId, text) +
      out.slice(block.end);
  }
  return out;
}
