/**
 * JSON as stored, with where each value sits in the text. Page builders keep a page as one JSON string
 * (Elementor's `_elementor_data`); to change one setting and leave every other byte as it was, an edit replaces
 * the span of that one value instead of encoding the page again (docs/page-builders.md).
 */

export type Span = { start: number; end: number };

export type JsonNode =
  | (Span & { type: "object"; entries: Array<{ key: string; keyStart: number; value: JsonNode }> })
  | (Span & { type: "array"; items: JsonNode[] })
  | (Span & { type: "string"; value: string })
  | (Span & { type: "number"; value: number })
  | (Span & { type: "boolean"; value: boolean })
  | (Span & { type: "null" });

export class JsonSpanError extends Error {
  constructor(message: string, at: number) {
    super(`${message} at offset ${at}`);
    this.name = "JsonSpanError";
  }
}

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);
const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/** A recursive-descent JSON reader that keeps each value's offsets. */
class SpanParser {
  at = 0;
  constructor(readonly text: string) {}

  skip() {
    while (this.at < this.text.length && WHITESPACE.has(this.text[this.at]!)) this.at++;
  }

  fail(message: string): never {
    throw new JsonSpanError(message, this.at);
  }

  string(): JsonNode & { type: "string" } {
    const { text } = this;
    const start = this.at++;
    let value = "";
    while (this.at < text.length && text[this.at] !== '"') {
      const char = text[this.at]!;
      if (char !== "\\") {
        value += char;
        this.at++;
        continue;
      }
      const next = text[this.at + 1] ?? "";
      if (next === "u") {
        const hex = text.slice(this.at + 2, this.at + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail("bad unicode escape");
        value += String.fromCharCode(Number.parseInt(hex, 16));
        this.at += 6;
      } else if (next in ESCAPES) {
        value += ESCAPES[next];
        this.at += 2;
      } else this.fail("bad escape");
    }
    if (text[this.at] !== '"') this.fail("unterminated string");
    this.at++;
    return { type: "string", value, start, end: this.at };
  }

  literal(): JsonNode {
    const start = this.at;
    for (const [word, node] of LITERALS) {
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length;
        return { ...node, start, end: this.at } as JsonNode;
      }
    }
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.text.slice(this.at, this.at + 400));
    if (!match) return this.fail("unexpected character");
    this.at += match[0].length;
    return { type: "number", value: Number(match[0]), start, end: this.at };
  }

  value(): JsonNode {
    this.skip();
    const char = this.text[this.at];
    if (char === "{") return this.object();
    if (char === "[") return this.array();
    if (char === '"') return this.string();
    return this.literal();
  }

  array(): JsonNode {
    const start = this.at++;
    const items: JsonNode[] = [];
    this.skip();
    if (this.text[this.at] === "]") return { type: "array", items, start, end: ++this.at };
    for (;;) {
      items.push(this.value());
      this.skip();
      if (this.text[this.at] === ",") this.at++;
      else if (this.text[this.at] === "]") return { type: "array", items, start, end: ++this.at };
      else this.fail("expected , or ]");
    }
  }

  object(): JsonNode {
    const start = this.at++;
    const entries: Array<{ key: string; keyStart: number; value: JsonNode }> = [];
    this.skip();
    if (this.text[this.at] === "}") return { type: "object", entries, start, end: ++this.at };
    for (;;) {
      this.skip();
      if (this.text[this.at] !== '"') this.fail("expected a key");
      const key = this.string();
      this.skip();
      if (this.text[this.at] !== ":") this.fail("expected :");
      this.at++;
      entries.push({ key: key.value, keyStart: key.start, value: this.value() });
      this.skip();
      if (this.text[this.at] === ",") this.at++;
      else if (this.text[this.at] === "}") return { type: "object", entries, start, end: ++this.at };
      else this.fail("expected , or }");
    }
  }
}

const LITERALS = [
  ["true", { type: "boolean", value: true }],
  ["false", { type: "boolean", value: false }],
  ["null", { type: "null" }],
] as const;

/** Parses JSON text into nodes carrying their offsets; throws JsonSpanError on anything that is not JSON. */
export function parseWithSpans(text: string): JsonNode {
  const parser = new SpanParser(text);
  const root = parser.value();
  parser.skip();
  if (parser.at !== text.length) parser.fail("trailing characters");
  return root;
}

/** The value a node stands for, as JSON.parse would give it. */
export function nodeValue(node: JsonNode): unknown {
  switch (node.type) {
    case "object":
      return Object.fromEntries(node.entries.map((entry) => [entry.key, nodeValue(entry.value)]));
    case "array":
      return node.items.map(nodeValue);
    case "null":
      return null;
    default:
      return node.value;
  }
}

/** The entry of an object node by key. */
export function entryOf(node: JsonNode | undefined, key: string): JsonNode | undefined {
  return node?.type === "object" ? node.entries.find((entry) => entry.key === key)?.value : undefined;
}

/** Replaces spans of `text` (non-overlapping, any order) with new text. */
export function splice(text: string, edits: Array<Span & { insert: string }>): string {
  const ordered = [...edits].sort((a, b) => b.start - a.start);
  let out = text;
  for (const edit of ordered) out = out.slice(0, edit.start) + edit.insert + out.slice(edit.end);
  return out;
}
