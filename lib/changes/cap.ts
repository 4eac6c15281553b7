/**
 * Caps an item's `before`/`after` for a diff answer: each side's JSON at most `max` bytes. An object keeps every
 * field; small fields stay whole and the long ones share the room left (a string is cut, anything else becomes its
 * JSON text, cut). The whole item is read from `GET …/items/:itemId`.
 */
const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value) ?? "null");

/** The longest start of `text` whose JSON string (quotes and escapes included) fits in `max` bytes. */
export function cutString(text: string, max: number): string {
  let low = 0;
  let high = Math.min(text.length, max);
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (jsonBytes(text.slice(0, mid)) <= max) low = mid;
    else high = mid - 1;
  }
  // Never end on half of a surrogate pair.
  const last = text.charCodeAt(low - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? low - 1 : low);
}

const cutValue = (value: unknown, max: number) =>
  cutString(typeof value === "string" ? value : (JSON.stringify(value) ?? ""), Math.max(2, max));

export function capJson(value: unknown, max: number): { value: unknown; cut: boolean } {
  if (value === undefined || jsonBytes(value) <= max) return { value, cut: false };
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { value: cutValue(value, max), cut: true };
  }
  const entries = Object.entries(value as Record<string, unknown>).map(([key, field]) => ({
    key,
    field,
    size: jsonBytes(field),
  }));
  // Keys, braces and commas, with every value as "": what is left is the room the values share.
  let room = max - jsonBytes(Object.fromEntries(entries.map((e) => [e.key, ""]))) + 2 * entries.length;
  const capped: Record<string, unknown> = {};
  let left = entries.length;
  for (const entry of [...entries].sort((a, b) => a.size - b.size)) {
    const share = Math.floor(room / left);
    const kept = entry.size <= share ? entry.field : cutValue(entry.field, share);
    capped[entry.key] = kept;
    room -= jsonBytes(kept);
    left--;
  }
  // Back in the fields' own order.
  return { value: Object.fromEntries(entries.map((e) => [e.key, capped[e.key]])), cut: true };
}
