import { describe, expect, it } from "vitest";
import { capJson } from "./cap";

const size = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe("capJson", () => {
  it("keeps a value that fits as it is", () => {
    const value = { title: "About us", content: "<p>Hello</p>" };
    expect(capJson(value, 1000)).toEqual({ value, cut: false });
  });

  it("cuts text whose escapes and multi-byte characters make its JSON longer than its length", () => {
    for (const text of ['"'.repeat(10_000), "\n".repeat(10_000), "é".repeat(10_000), "🦊".repeat(10_000)]) {
      const { value, cut } = capJson(text, 1000);
      expect(cut).toBe(true);
      expect(size(value)).toBeLessThanOrEqual(1000);
      expect(size(value)).toBeGreaterThan(900);
      expect((value as string).isWellFormed()).toBe(true);
    }
  });

  it("keeps every field of an object, small ones whole, the long ones sharing the room", () => {
    const value = { title: "Opening hours", content: "x".repeat(50_000), excerpt: "y".repeat(50_000), menu_order: 3 };
    const capped = capJson(value, 10_000);
    expect(capped.cut).toBe(true);
    expect(size(capped.value)).toBeLessThanOrEqual(10_000);
    const fields = capped.value as Record<string, unknown>;
    expect(Object.keys(fields)).toEqual(["title", "content", "excerpt", "menu_order"]);
    expect(fields).toMatchObject({ title: "Opening hours", menu_order: 3 });
    expect((fields.content as string).length).toBeGreaterThan(4000);
    expect((fields.excerpt as string).length).toBeGreaterThan(4000);
  });

  it("turns a long list into its JSON text, cut", () => {
    const { value, cut } = capJson(
      Array.from({ length: 5000 }, (_, i) => ({ title: `Item ${i}` })),
      2000,
    );
    expect(cut).toBe(true);
    expect(typeof value).toBe("string");
    expect(size(value)).toBeLessThanOrEqual(2000);
  });
});
