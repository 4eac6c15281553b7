/**
 * WordPress block markup (`<!-- wp:name {attrs} -->…<!-- /wp:name -->`) read as a tree of source ranges, so the
 * agent can see a page's outline and change exactly one block while every other byte (page-builder data,
 * shortcodes, classic HTML, unknown blocks) stays as it was. The grammar follows WP_Block_Parser (WP 6.1).
 */

export type BlockNode = {
  /** `core/paragraph`, `acme/widget`; `null` for classic HTML between blocks (WordPress's freeform content). */
  name: string | null;
  attrs: Record<string, unknown> | null;
  /** Source offsets: the whole block, delimiters included. */
  start: number;
  end: number;
  children: BlockNode[];
  /** False when the document ended before the block's closing comment (WordPress closes it implicitly). */
  closed: boolean;
};

export type OutlineEntry = {
  /** 1-based path through the tree: "2" is the second top-level block, "2.1" its first inner block. */
  position: string;
  block: string;
  /** The block's text without tags, shortened: enough to recognise it. */
  preview: string;
  attrs?: Record<string, unknown>;
};

// WP_Block_Parser::next_token's pattern, without PHP's possessive quantifier (the lazy attrs match stops at the
// first `}` followed by whitespace and `-->` or `/-->`, which is the same rule).
const DELIMITER = /<!--\s+(\/)?wp:([a-z][a-z0-9_-]*\/)?([a-z][a-z0-9_-]*)\s+(\{[\s\S]*?\}\s+)?(\/)?-->/g;

type Token = {
  kind: "open" | "close" | "void";
  name: string;
  attrs: Record<string, unknown> | null;
  start: number;
  end: number;
};

function* tokens(source: string): Generator<Token> {
  DELIMITER.lastIndex = 0;
  for (let match = DELIMITER.exec(source); match; match = DELIMITER.exec(source)) {
    const [whole, closer, namespace, name, rawAttrs, isVoid] = match;
    let attrs: Record<string, unknown> | null = null;
    if (rawAttrs) {
      try {
        const parsed: unknown = JSON.parse(rawAttrs.trim());
        attrs =
          parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
      } catch {
        attrs = null; // WordPress also keeps going with null attributes
      }
    }
    yield {
      kind: closer ? "close" : isVoid ? "void" : "open",
      name: `${namespace ?? "core/"}${name}`,
      attrs,
      start: match.index,
      end: match.index + whole.length,
    };
  }
}

/** Parses block markup into a tree of source ranges. Never throws; stray closers are left as text. */
export function parseBlocks(source: string): BlockNode[] {
  const top: BlockNode[] = [];
  const stack: BlockNode[] = [];
  let cursor = 0; // end of the last top-level block, for freeform runs

  const addFreeform = (from: number, to: number) => {
    if (to > from && source.slice(from, to).trim() !== "") {
      top.push({ name: null, attrs: null, start: from, end: to, children: [], closed: true });
    }
  };

  for (const token of tokens(source)) {
    if (token.kind === "close") {
      const depth = stack.findLastIndex((node) => node.name === token.name);
      if (depth === -1) continue; // a closer without an opener is plain text
      while (stack.length > depth + 1) {
        // inner blocks left open end where their parent ends
        const orphan = stack.pop()!;
        orphan.end = token.start;
        orphan.closed = false;
      }
      const node = stack.pop()!;
      node.end = token.end;
      if (stack.length === 0) cursor = node.end;
      continue;
    }
    const node: BlockNode = {
      name: token.name,
      attrs: token.attrs,
      start: token.start,
      end: token.end,
      children: [],
      closed: true,
    };
    if (stack.length === 0) {
      addFreeform(cursor, token.start);
      top.push(node);
      if (token.kind === "void") cursor = token.end;
    } else {
      stack.at(-1)!.children.push(node);
    }
    if (token.kind === "open") stack.push(node);
  }
  for (const open of stack) {
    open.end = source.length;
    open.closed = false;
  }
  if (stack.length === 0) addFreeform(cursor, source.length);
  // Keep the top level in source order (freeform runs are pushed before the block that follows them).
  return top.sort((a, b) => a.start - b.start);
}

function textOf(source: string, node: BlockNode): string {
  return source
    .slice(node.start, node.end)
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/<[^>]*>/g, " ")
    .replace(/&nbsp;/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

const PREVIEW_LENGTH = 80;

/** The page's outline: one entry per block, nested positions, a short text preview each. */
export function outline(source: string, blocks: BlockNode[] = parseBlocks(source)): OutlineEntry[] {
  const entries: OutlineEntry[] = [];
  const walk = (nodes: BlockNode[], prefix: string) => {
    nodes.forEach((node, index) => {
      const position = prefix ? `${prefix}.${index + 1}` : `${index + 1}`;
      const text = textOf(source, node);
      const entry: OutlineEntry = {
        position,
        block: node.name ?? "core/freeform",
        preview: text.length > PREVIEW_LENGTH ? `${text.slice(0, PREVIEW_LENGTH - 1)}…` : text,
      };
      if (node.attrs && Object.keys(node.attrs).length > 0) entry.attrs = node.attrs;
      entries.push(entry);
      walk(node.children, position);
    });
  };
  walk(blocks, "");
  return entries;
}

/** The block at an outline position ("2.1"), or undefined. */
export function findBlock(blocks: BlockNode[], position: string): BlockNode | undefined {
  if (!/^[1-9]\d*(\.[1-9]\d*)*$/.test(position)) return undefined;
  let level: BlockNode[] = blocks;
  let node: BlockNode | undefined;
  for (const step of position.split(".")) {
    node = level[Number(step) - 1];
    if (!node) return undefined;
    level = node.children;
  }
  return node;
}

export class BlockEditError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BlockEditError";
  }
}

/** Refuses markup that would unbalance the page: every block opened in it must be closed in it. */
export function assertBalancedMarkup(markup: string): void {
  if (markup.trim() === "") throw new BlockEditError("The new block markup is empty.");
  const stack: string[] = [];
  for (const token of tokens(markup)) {
    if (token.kind === "open") stack.push(token.name);
    else if (token.kind === "close") {
      if (stack.pop() !== token.name) throw new BlockEditError(`The markup closes ${token.name} without opening it.`);
    }
  }
  if (stack.length > 0) throw new BlockEditError(`The markup opens ${stack.at(-1)} without closing it.`);
}

/** Replaces the block at `position` with `markup`; every other byte of the source is kept. */
export function replaceBlock(source: string, position: string, markup: string): string {
  assertBalancedMarkup(markup);
  const node = findBlock(parseBlocks(source), position);
  if (!node) throw new BlockEditError(`There is no block at position ${position}.`);
  return source.slice(0, node.start) + markup + source.slice(node.end);
}

/**
 * Inserts `markup` before or after the block at `position`, or at the end of the page when `position` is
 * "end". A newline pair separates it from its neighbours, as the block editor does.
 */
export function insertBlock(source: string, position: string, where: "before" | "after", markup: string): string {
  assertBalancedMarkup(markup);
  if (position === "end") {
    const separator = source.trim() === "" ? "" : "\n\n";
    return `${source.replace(/\s+$/, "")}${separator}${markup}`;
  }
  const node = findBlock(parseBlocks(source), position);
  if (!node) throw new BlockEditError(`There is no block at position ${position}.`);
  return where === "before"
    ? `${source.slice(0, node.start)}${markup}\n\n${source.slice(node.start)}`
    : `${source.slice(0, node.end)}\n\n${markup}${source.slice(node.end)}`;
}

/** The exact markup of one block, for showing before/after. */
export function blockSource(source: string, position: string): string | undefined {
  const node = findBlock(parseBlocks(source), position);
  return node ? source.slice(node.start, node.end) : undefined;
}

/**
 * Removes the block at `position` (outline positions, as replaceBlock takes them) and the line breaks that
 * separated it from the block before it (or, for a first block, from the one after it): the inverse of insertBlock.
 */
export function removeBlock(source: string, position: string): string {
  const node = findBlock(parseBlocks(source), position);
  if (!node) throw new BlockEditError(`There is no block at position ${position}.`);
  const before = source.slice(0, node.start);
  const after = source.slice(node.end);
  const trimmed = before.replace(/(?:\r?\n[ \t]*)+$/, "");
  return trimmed !== before ? trimmed + after : before + after.replace(/^(?:[ \t]*\r?\n)+/, "");
}
