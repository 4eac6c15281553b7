/**
 * The tokens a site's tools cost on every model call: the system prompt plus each offered tool's name,
 * description and JSON schema as the Chat Completions request carries them, counted with the o200k_base
 * tokenizer (GPT-4o and later) from `gpt-tokenizer`. The provider renders tool definitions in its own format, so
 * this is a measure of what we send, not an invoice; it moves exactly when our prompt, descriptions or schemas do.
 * Used by bench/tokens.ts (`npm run bench`) and lib/agent/tool-budget.test.ts.
 */
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { sdkInputSchema } from "../operations";
import { systemPrompt } from "../prompt";
import { allowedOperations, DEFAULT_OPERATIONS, grantFromSiteInfo } from "../registry";
import { toolDefinitions } from "../tool-definitions";

export const TOOL_TOKEN_BUDGET = 4_000;

/** A site whose token holds every scope and whose plugin reports every feature: the most tools anyone is offered. */
export function siteInfoFor(kind: "block" | "classic") {
  return {
    name: "Example Bakery",
    url: "https://bakery.example",
    theme: { name: "Any", stylesheet: "any", template: "any", version: "1", isBlockTheme: kind === "block" },
    features: ["custom_css", "terms", "media_alt", "seo", "media_upload"],
    builders: [{ name: "elementor", version: "4.2.2" }],
    token: {
      scopes: ["site:read", "content:read", "content:write", "media:write", "design:write", "settings:write"],
      capabilities: null,
    },
  };
}

export type ToolTokens = { total: number; system: number; tools: Array<{ name: string; tokens: number }> };

export async function offeredTokens(kind: "block" | "classic"): Promise<ToolTokens> {
  const info = siteInfoFor(kind);
  const { operations } = allowedOperations(grantFromSiteInfo(info), DEFAULT_OPERATIONS);
  const system = countTokens(systemPrompt({ url: info.url, name: info.name }, operations));
  const definitions = await toolDefinitions(operations, sdkInputSchema);
  const tools = definitions.map((definition) => ({
    name: definition.function.name,
    tokens: countTokens(JSON.stringify(definition)),
  }));
  // The request carries the definitions as one JSON array: count it whole (separators included).
  const total = system + countTokens(JSON.stringify(definitions));
  return { total, system, tools };
}
