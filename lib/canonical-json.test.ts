import { describe, expect, it } from "vitest";
import { canonicalJson } from "./canonical-json";

describe("canonical JSON", () => {
  it("serialises equal values the same whatever their key order", () => {
    expect(canonicalJson({ b: 1, a: [2, { d: 3, c: 4 }] })).toBe(canonicalJson({ a: [2, { c: 4, d: 3 }], b: 1 }));
    expect(canonicalJson({ b: 1, a: 2 })).toBe('{"a":2,"b":1}');
  });

  it("leaves out undefined members as JSON does, so an absent and an undefined field hash alike", () => {
    expect(canonicalJson({ a: 1, b: undefined })).toBe(canonicalJson({ a: 1 }));
    expect(canonicalJson({ a: undefined })).toBe(JSON.stringify(JSON.parse(JSON.stringify({ a: undefined }))));
    expect(canonicalJson([undefined])).toBe("[null]");
  });
});
