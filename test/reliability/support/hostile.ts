/**
 * Hostile request bodies for property tests: JSON written by hand (so keys like `__proto__` reach the server as
 * keys), wrong types, huge and odd strings (NUL, lone surrogates, right-to-left marks), deep nesting, invalid UTF-8.
 */
import fc from "fast-check";

/** A JSON document as a tree we serialize ourselves: object members are an ordered list, duplicates and all. */
export type Json = null | boolean | number | string | Json[] | JsonObject;
export class JsonObject {
  constructor(readonly members: [string, Json][]) {}
  with(key: string, value: Json): JsonObject {
    return new JsonObject([...this.members.filter(([k]) => k !== key), [key, value]]);
  }
  without(key: string): JsonObject {
    return new JsonObject(this.members.filter(([k]) => k !== key));
  }
  get(key: string): Json | undefined {
    return this.members.find(([k]) => k === key)?.[1];
  }
}

/** JSON.stringify escapes lone surrogates as \udXXX (well-formed JSON text), exactly what a hostile client sends. */
export function toJson(value: Json): string {
  if (value instanceof JsonObject)
    return `{${value.members.map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`).join(",")}}`;
  if (Array.isArray(value)) return `[${value.map(toJson).join(",")}]`;
  return JSON.stringify(value) ?? "null";
}

export const obj = (record: Record<string, Json>) => new JsonObject(Object.entries(record));

const anyUtf16Unit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));

/** Strings PostgreSQL, JSON and URL parsers are known to choke on: NUL, lone surrogates, non-characters, huge. */
export const POISON_STRINGS: readonly string[] = [
  "\u0000",
  "a\u0000b",
  "user\u0000@example.com",
  "\ud800",
  "x\udfffy",
  "\ud83d",
  "\uffff\ufffe",
  "\ufeff",
  "\u202etxt.exe",
  "%00",
  "a".repeat(70_000),
];

const poisoned = fc
  .tuple(
    fc.string({ maxLength: 12 }),
    fc.constantFrom("\u0000", "\ud800", "\udc00", "\ud83d", "\uffff"),
    fc.string({ maxLength: 12 }),
  )
  .map(([before, bad, after]) => before + bad + after);

export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: poisoned, weight: 3 },
  { arbitrary: fc.string({ unit: anyUtf16Unit, maxLength: 40 }), weight: 2 },
  { arbitrary: fc.string({ maxLength: 40 }), weight: 1 },
  {
    arbitrary: fc.constantFrom(
      ...POISON_STRINGS.slice(0, -1),
      "",
      " ",
      "' OR '1'='1",
      "<script>alert(1)</script>",
      "../../../../etc/passwd",
      ["$", "{jndi:ldap://127.0.0.1/x}"].join(""), // log4shell-shaped text
      "https://localhost:1/\u0000",
      "https://user:pass@localhost/",
      "javascript:alert(1)",
      "BCDF-GHJK",
      "__proto__",
    ),
    weight: 2,
  },
  { arbitrary: fc.integer({ min: 200, max: 40_000 }).map((n) => "é".repeat(n)), weight: 1 },
  { arbitrary: fc.integer({ min: 16, max: 200 }).map((n) => "a\u0000".repeat(n)), weight: 1 },
);

const hostileKey = fc.oneof(
  fc.constantFrom(
    "__proto__",
    "constructor",
    "prototype",
    "toString",
    "valueOf",
    "hasOwnProperty",
    "__defineGetter__",
    "then",
  ),
  nastyString.filter((s) => s.length < 60),
);

const primitive: fc.Arbitrary<Json> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.constantFrom(0, -0, 1e308, -1e308, 5e-324, Number.MAX_SAFE_INTEGER + 2, 3.5),
  nastyString,
);

export function hostileValue(keys: readonly string[] = []): fc.Arbitrary<Json> {
  const key = keys.length ? fc.oneof(fc.constantFrom(...keys), hostileKey) : hostileKey;
  const { value } = fc.letrec<{ value: Json; array: Json[]; object: JsonObject }>((tie) => ({
    value: fc.oneof({ depthSize: "small", withCrossShrink: true }, primitive, tie("array"), tie("object")),
    array: fc.array(tie("value"), { maxLength: 4 }),
    object: fc.array(fc.tuple(key, tie("value")), { maxLength: 4 }).map((members) => new JsonObject(members)),
  }));
  return value;
}

/** `[[[...]]]` or `{"a":{"a":...}}` as text, `depth` levels deep. */
export const deepText = fc
  .tuple(fc.integer({ min: 64, max: 30_000 }), fc.boolean())
  .map(([depth, arrays]) =>
    arrays ? "[".repeat(depth) + "]".repeat(depth) : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`,
  );

/** Byte sequences that are not valid UTF-8 (or are NUL): a stray continuation, an overlong NUL, an encoded surrogate... */
export const badBytes = fc.constantFrom(
  [0xff],
  [0xfe, 0xff],
  [0x80],
  [0xc0, 0x80],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xe2, 0x82],
  [0x00],
);

export type RawBody = { bytes: Uint8Array; contentType: string | undefined; label: string };
const encoder = new TextEncoder();

/**
 * Bodies derived from a valid one: fields replaced, removed or added with hostile values; valid JSON with deep
 * nesting in a field; the text with invalid bytes spliced in; random bytes; other content types.
 */
export function hostileBodies(valid: JsonObject, keys: readonly string[]): fc.Arbitrary<RawBody> {
  const value = hostileValue(keys);
  const fieldKey = fc.oneof(fc.constantFrom(...keys), hostileKey);
  const mutated = fc
    .array(
      fc.oneof(
        fc.tuple(fieldKey, value).map(
          ([k, v]) =>
            (o: JsonObject) =>
              o.with(k, v),
        ),
        fc.constantFrom(...keys).map((k) => (o: JsonObject) => o.without(k)),
        // One level down, for nested objects such as redeem's `plugin` and `site`.
        fc.tuple(fc.constantFrom(...keys), fieldKey, value).map(([outer, k, v]) => (o: JsonObject) => {
          const inner = o.get(outer);
          return o.with(outer, (inner instanceof JsonObject ? inner : new JsonObject([])).with(k, v));
        }),
      ),
      { minLength: 1, maxLength: 3 },
    )
    .map((changes) => changes.reduce((o, change) => change(o), valid));

  const json =
    (label: string) =>
    (text: string): RawBody => ({ bytes: encoder.encode(text), contentType: "application/json", label });
  const validText = toJson(valid);
  return fc.oneof(
    { arbitrary: mutated.map((o) => json("mutated")(toJson(o))), weight: 6 },
    { arbitrary: value.map((v) => json("random json")(toJson(v))), weight: 2 },
    {
      arbitrary: fc
        .tuple(fc.constantFrom(...keys), deepText)
        .map(([k, deep]) => json("deep field")(validText.replace(/^\{/, `{${JSON.stringify(k)}:${deep},`))),
      weight: 1,
    },
    { arbitrary: deepText.map(json("deep body")), weight: 1 },
    {
      arbitrary: fc.tuple(fc.nat(), badBytes).map(([at, bad]) => {
        const bytes = encoder.encode(validText);
        const i = at % (bytes.length + 1);
        return {
          bytes: new Uint8Array([...bytes.slice(0, i), ...bad, ...bytes.slice(i)]),
          contentType: "application/json",
          label: "bad bytes",
        };
      }),
      weight: 2,
    },
    {
      arbitrary: fc
        .uint8Array({ maxLength: 300 })
        .map((bytes) => ({ bytes, contentType: "application/json", label: "random bytes" })),
      weight: 1,
    },
    {
      arbitrary: fc
        .constantFrom(
          "text/plain",
          "application/x-www-form-urlencoded",
          "multipart/form-data; boundary=x",
          undefined,
          "application/jsonp",
        )
        .map((contentType) => ({
          bytes: encoder.encode(validText),
          contentType,
          label: "content type",
        })),
      weight: 1,
    },
    {
      arbitrary: fc
        .integer({ min: 64 * 1024 - 100, max: 200 * 1024 })
        .map((n) => json("huge")(validText.replace(/^\{/, `{"pad":"${"x".repeat(n)}",`))),
      weight: 1,
    },
  );
}
