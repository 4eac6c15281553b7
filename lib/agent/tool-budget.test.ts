/**
 * The tools are paid for on every model call: the system prompt plus the definitions a site is offered stay within
 * 4,000 tokens (o200k_base) for a block-theme site and for a classic one, and neither is offered both families.
 */
import { describe, expect, it } from "vitest";
import { resetEnvForTests } from "@/lib/env";
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

  it(`with AGENT_VISION on (view_image offered), a block-theme site still fits in ${TOOL_TOKEN_BUDGET} tokens`, async () => {
    try {
      resetEnvForTests({ AGENT_VISION: "true" });
      const { total, tools } = await offeredTokens("block");
      expect(tools.map((t) => t.name)).toContain("view_image");
      expect(total).toBeLessThanOrEqual(TOOL_TOKEN_BUDGET);
    } finally {
      resetEnvForTests({ AGENT_VISION: undefined });
    }
    expect((await offeredTokens("block")).tools.map((t) => t.name)).not.toContain("view_image");
  });

  it("block sites get navigation and global styles, classic sites menus: never both", async () => {
    const block = (await offeredTokens("block")).tools.map((t) => t.name);
    const classic = (await offeredTokens("classic")).tools.map((t) => t.name);
    expect(block).toContain("change_navigation");
    expect(block).not.toContain("change_menu");
    expect(classic).toContain("change_menu");
    expect(classic).not.toContain("update_global_styles");
  });

  it("sends lean schemas: no $schema, safe-integer bounds, length bounds, closed objects or long patterns; ranges, enums and short patterns stay", () => {
    const longPattern = "^(upload:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|https://\\S+)$";
    expect(
      leanJsonSchema({
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        additionalProperties: false,
        properties: {
          id: { type: "integer", exclusiveMinimum: 0, maximum: Number.MAX_SAFE_INTEGER },
          n: { type: "integer", minimum: 1, maximum: 100 },
          slug: { type: "string", pattern: "^[a-z0-9-]{1,60}$", maxLength: 60 },
          file: { type: "string", pattern: longPattern, minLength: 1 },
          kind: { type: "string", enum: ["a", "b"] },
          colors: { type: "object", additionalProperties: { type: "string" } },
        },
      }),
    ).toEqual({
      type: "object",
      properties: {
        id: { type: "integer" },
        n: { type: "integer", minimum: 1, maximum: 100 },
        slug: { type: "string", pattern: "^[a-z0-9-]{1,60}$" },
        file: { type: "string" },
        kind: { type: "string", enum: ["a", "b"] },
        colors: { type: "object", additionalProperties: { type: "string" } },
      },
    });
  });
});
