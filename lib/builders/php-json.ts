/**
 * JSON written the way the site writes it. Elementor stores `wp_json_encode()` output: PHP's json_encode with no
 * flags, which escapes "/" as "\/" and every non-ASCII character as "\uXXXX". A value we put into a page must be
 * spelled the same way, so the page reads as if Elementor had saved it. Pages written by other tools (unescaped
 * unicode or slashes) keep their own style: it is read from the page itself.
 */

export type JsonStyle = { escapeSlashes: boolean; escapeUnicode: boolean };

/** PHP's json_encode() defaults (wp_json_encode). */
export const PHP_STYLE: JsonStyle = { escapeSlashes: true, escapeUnicode: true };

/** The style a stored page uses: a literal non-ASCII character or an unescaped "/" says the writer did not escape. */
export function styleOf(raw: string): JsonStyle {
  return {
    escapeUnicode: !/[^\t\n\r -~]/.test(raw),
    escapeSlashes: !/(^|[^\\])(\\\\)*\//.test(raw),
  };
}

const hex4 = (code: number) => `\\u${code.toString(16).padStart(4, "0")}`;
const SHORT: Record<string, string> = {
  '"': '\\"',
  "\\": "\\\\",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
};

/** A string as a JSON string literal in the given style. */
export function encodeString(value: string, style: JsonStyle = PHP_STYLE): string {
  let out = '"';
  for (let i = 0; i < value.length; i++) {
    const char = value[i]!;
    const code = value.charCodeAt(i);
    if (char in SHORT) out += SHORT[char];
    else if (char === "/") out += style.escapeSlashes ? "\\/" : "/";
    else if (code < 0x20) out += hex4(code);
    else if (code > 0x7f && style.escapeUnicode) out += hex4(code);
    else out += char;
  }
  return `${out}"`;
}

/**
 * Any JSON value in the given style, without whitespace. An empty object is written `[]`, as PHP writes an empty
 * array (Elementor's own empty `settings`).
 */
export function encodeValue(value: unknown, style: JsonStyle = PHP_STYLE): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return encodeString(value, style);
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (Array.isArray(value)) return `[${value.map((item) => encodeValue(item, style)).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return "[]";
  return `{${entries.map(([key, item]) => `${encodeString(key, style)}:${encodeValue(item, style)}`).join(",")}}`;
}
