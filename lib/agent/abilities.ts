/**
 * Sitewright's operations as WordPress abilities (docs/abilities.md): the manifest the plugin ships as
 * plugin/abilities.json, made from the agent's operations so the names, words, scopes, risks and input schemas
 * cannot drift (lib/agent/abilities.test.ts compares the file with this). `npx tsx scripts/abilities-json.ts`
 * writes it.
 */
import { z } from "zod";
import { ALL_OPERATIONS } from "@/lib/agent/operations";
import type { Operation } from "@/lib/agent/operations/operation";

/** The reads the plugin answers inside WordPress (plugin/includes/class-sitewright-abilities.php runs each). */
export const READS_IN_WORDPRESS = ["get_site_info", "list_pages", "list_posts", "read_page"] as const;

/** Operations that are no ability: a bulk job is started and reviewed in the app; an image view is for the model. */
const NOT_ABILITIES = new Set(["start_bulk_job", "view_image"]);

export type AbilityEntry = {
  operation: string;
  /** `sitewright/<operation>` with dashes: WordPress allows only `[a-z0-9-]` in an ability's name. */
  name: string;
  label: string;
  description: string;
  scope: Operation["scope"];
  risk: Operation["risk"];
  /** Where it runs: a read in WordPress, a write is sent to the service as a pending change set. */
  runs: "wordpress" | "service";
  annotations: { readonly: boolean; destructive: boolean; idempotent: boolean };
  capabilities: string[];
  inputSchema: Record<string, unknown>;
};

export const abilityName = (operation: string) => `sitewright/${operation.replaceAll("_", "-")}`;

/** The operation's input as JSON Schema draft 4, the dialect WordPress's REST validator reads. */
function inputSchema(op: Operation): Record<string, unknown> {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(op.input as z.ZodType, {
    io: "input",
    unrepresentable: "any",
    target: "draft-4",
  }) as Record<string, unknown>;
  // WordPress runs an ability without input as `null`: an object schema's default makes that `{}`.
  return schema.type === "object" ? { ...schema, default: {} } : schema;
}

function entry(op: Operation): AbilityEntry {
  const read = op.risk === "read";
  return {
    operation: op.name,
    name: abilityName(op.name),
    label: op.label,
    description: read
      ? op.description
      : `${op.description} Proposes the change: Sitewright answers with a pending change set the owner approves on its card; nothing visible is written before that.`,
    scope: op.scope,
    risk: op.risk,
    runs: read ? "wordpress" : "service",
    annotations: { readonly: read, destructive: op.risk === "destructive", idempotent: read },
    capabilities: op.capabilities ?? [],
    inputSchema: inputSchema(op),
  };
}

/** The manifest: every write the service can take, and the reads WordPress answers itself. */
export function abilityManifest(operations: readonly Operation[] = ALL_OPERATIONS) {
  const reads = new Set<string>(READS_IN_WORDPRESS);
  const abilities = operations
    .filter((op) => !NOT_ABILITIES.has(op.name) && !op.startsJob && !op.vision)
    .filter((op) => op.risk !== "read" || reads.has(op.name))
    .map(entry);
  return {
    about:
      "Generated from lib/agent/operations by scripts/abilities-json.ts (lib/agent/abilities.ts); do not edit. The plugin registers these as WordPress abilities on 6.9+ (docs/abilities.md).",
    category: "sitewright",
    abilities,
  };
}

export const abilityManifestJson = () => `${JSON.stringify(abilityManifest(), null, 2)}\n`;
