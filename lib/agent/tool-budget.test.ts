/**
 * The tools are paid for on every model call: the system prompt plus the definitions a site is offered stay within
 * 4,000 tokens (o200k_base) for a block-theme site and for a classic one, and neither is offered both families.
 */
import { describe, expect, it } from "vitest";
import { leanJsonSchema } from "./tool-definitions";
import { offeredTokens, TOOL_TOKEN_BUDGET } from "./testing/tool-tokens";

describe("the tool token budget", () => {
  for (const kind of ["block", "classic"] as const) {
    it(`a ${kind}-theme site's system prompt and tools fit in ${TOOL_TOKEN_BUDGET} tokens`, async () => {
      const { total, system, tools } = await offeredTokens(kind);
      expect(tools.length).toBeGreaterThan(10);
      expect(system).toBeGreaterThan(100);
      expect(total).toBeLessThanOrEqual(TOOL_TOKEN_BUDGET);
    });
  }

  it("block sites get navigation and global styles, classic sites menus: never both", async () => {
    const block = (await offeredTokens("block")).tools.map((t) => t.name);
    const classic = (await offeredTokens("classic")).tools.map((t) => t.name);
    expect(block).toContain("change_navigation");
    expect(block).not.toContain("change_menu");
    expect(classic).toContain("change_menu");
    expect(classic).not.toContain("update_global_styles");
  });

  it("sends schemas without the $schema line and the safe-integer bounds, keeping every real constraint", () => {
    expect(
      leanJsonSchema({
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: {
          id: { type: "integer", exclusiveMinimum: 0, maximum: Number.MAX_SAFE_INTEGER },
          n: { type: "integer", minimum: 1, maximum: 100 },
        },
      }),
    ).toEqual({
      type: "object",
      properties: { id: { type: "integer", exclusiveMinimum: 0 }, n: { type: "integer", minimum: 1, maximum: 100 } },
    });
  });
});
