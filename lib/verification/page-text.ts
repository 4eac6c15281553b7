/**
 * Text as a visitor reads it, comparable between block markup and the HTML a theme renders: tags, comments,
 * scripts and styles removed, entities decoded, and WordPress's typography (wptexturize: curly quotes, dashes,
 * ellipses; non-breaking spaces) folded to plain characters, whitespace collapsed.
 */

const NAMED: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  ndash: "-",
  mdash: "-",
  hellip: "...",
  lsquo: "'",
  rsquo: "'",
  ldquo: '"',
  rdquo: '"',
  laquo: '"',
  raquo: '"',
  times: "x",
  copy: "(c)",
  reg: "(r)",
  trade: "(tm)",
};

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, entity: string) => {
    if (entity[0] === "#") {
      const code =
        entity[1] === "x" || entity[1] === "X" ? Number.parseInt(entity.slice(2), 16) : Number(entity.slice(1));
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[entity.toLowerCase()] ?? whole;
  });
}

/** Folds what wptexturize and friends change, so "it's" in markup matches "it’s" on the page. */
function foldTypography(text: string): string {
  return text
    .replace(/[\u2018\u2019\u201a\u2032]/g, "'")
    .replace(/[\u201c\u201d\u201e\u2033\u00ab\u00bb]/g, '"')
    .replace(/[\u2013\u2014\u2212]/g, "-")
    .replace(/\u2026/g, "...")
    .replace(/\u00d7/g, "x")
    .replace(/[\u00a0\u2009\u200a\u202f]/g, " ")
    .replace(/\u200b|\u200c|\u200d|\ufeff/g, "");
}

/** The visible text of a piece of HTML or block markup. */
export function pageText(html: string): string {
  const withoutHidden = html
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/<(script|style|noscript|template|svg)\b[\s\S]*?<\/\1\s*>/gi, " ")
    .replace(/<[^>]*>/g, " ");
  return foldTypography(decodeEntities(withoutHidden)).replace(/\s+/g, " ").trim();
}

/** A page's source (or a value from it) with entity spellings of URLs and CSS made plain, for raw searches. */
export function sourceForSearch(source: string): string {
  return foldTypography(decodeEntities(source)).replace(/\\\//g, "/");
}
