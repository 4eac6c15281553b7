/**
 * plugin/abilities.json is what lib/agent/abilities.ts makes from the agent's operations (regenerate it with
 * `npx tsx scripts/abilities-json.ts`), and its names and annotations are what WordPress accepts.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ALL_OPERATIONS } from "@/lib/agent/operations";
import { abilityManifest, abilityManifestJson, READS_IN_WORDPRESS } from "./abilities";

const shipped = readFileSync(path.resolve(import.meta.dirname, "../../plugin/abilities.json"), "utf8");

describe("the abilities manifest the plugin ships", () => {
  it("is up to date with the operations", () => {
    expect(shipped).toBe(abilityManifestJson());
  });

  it("names each ability as WordPress allows (sitewright/<operation> with dashes) and marks reads read-only", () => {
    const { abilities } = abilityManifest();
    for (const ability of abilities) {
      expect(ability.name).toMatch(/^sitewright\/[a-z0-9-]+$/);
      expect(ability.annotations.readonly).toBe(ability.risk === "read");
      expect(ability.runs).toBe(ability.risk === "read" ? "wordpress" : "service");
      expect(ability.inputSchema).toMatchObject({ type: "object", default: {} });
    }
    expect(abilities.filter((a) => a.risk === "read").map((a) => a.operation)).toEqual([...READS_IN_WORDPRESS]);
    const byName = new Map(abilities.map((a) => [a.operation, a]));
    expect(byName.get("update_page")).toMatchObject({
      name: "sitewright/update-page",
      scope: "content:write",
      annotations: { readonly: false, destructive: false, idempotent: false },
      inputSchema: { required: ["id"], properties: { id: { type: "integer", minimum: 0, exclusiveMinimum: true } } },
    });
    expect(byName.get("publish_page")?.annotations.destructive).toBe(true);
  });

  it("offers every write but the bulk job, and no read WordPress cannot answer itself", () => {
    const names = new Set(abilityManifest().abilities.map((a) => a.operation));
    for (const op of ALL_OPERATIONS) {
      const expected =
        op.risk === "read" ? (READS_IN_WORDPRESS as readonly string[]).includes(op.name) : op.name !== "start_bulk_job";
      expect(names.has(op.name), op.name).toBe(expected);
    }
  });
});
