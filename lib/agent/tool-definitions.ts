/**
 * What the model is sent about the tools a site is offered, on every step: each operation's name, description and
 * input JSON schema. Built here once so the chat (lib/agent/tools.ts) and the token budget (bench/tokens.ts, its
 * test) measure the same thing. The schemas are lean: no `$schema` line, no JavaScript safe-integer bounds, no
 * `additionalProperties: false`, no length bounds and no long regular expressions: they cost tokens on every tool
 * and step and tell the model little. Inputs are still validated by the full zod schema, and a call outside it
 * comes back to the model as an invalid call with zod's words (lib/agent/tools.ts).
 */
import { jsonSchema, type Schema, zodSchema } from "ai";
import type { z } from "zod";
import type { Operation } from "./operations/operation";

const SAFE_INTEGER_BOUNDS = new Set([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]);
/** A regular expression longer than this reads as noise to a model; the description says what is expected. */
const LONG_PATTERN = 40;

/** The JSON schema without what the model never needs (recursively). */
export function leanJsonSchema(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(leanJsonSchema);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === "$schema") continue;
    if ((key === "maximum" || key === "minimum") && SAFE_INTEGER_BOUNDS.has(inner as number)) continue;
    if (key === "additionalProperties" && inner === false) continue;
    if (key === "maxLength" || key === "minLength" || key === "exclusiveMinimum") continue;
    if (key === "pattern" && typeof inner === "string" && inner.length > LONG_PATTERN) continue;
    out[key] = leanJsonSchema(inner);
  }
  return out;
}

/** An operation's input as the AI SDK takes it: the lean JSON schema for the model, the zod schema for validation. */
export function leanToolSchema(input: z.ZodType): Schema<unknown> {
  const full = zodSchema(input as z.ZodType<unknown> & z.core.$ZodType);
  // The SDK reads the schema on every model call: compute the lean copy once, not once per step and tool.
  let lean: Parameters<typeof jsonSchema>[0] | undefined;
  return jsonSchema(
    () => {
      lean ??= leanJsonSchema(full.jsonSchema) as Parameters<typeof jsonSchema>[0];
      return lean;
    },
    { validate: full.validate },
  );
}

export const toolDescription = (op: Operation) =>
  op.risk === "destructive" ? `${op.description} (Needs the user's approval.)` : op.description;

/** The tools as the Chat Completions request carries them (`{type: "function", function: {...}}`). */
export async function toolDefinitions(operations: readonly Operation[], schemaOf: (op: Operation) => Schema<unknown>) {
  return Promise.all(
    operations.map(async (op) => ({
      type: "function" as const,
      function: { name: op.name, description: toolDescription(op), parameters: await schemaOf(op).jsonSchema },
    })),
  );
}
