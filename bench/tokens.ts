/**
 * Tool tokens: what the system prompt plus the tool definitions a site is offered cost on every model call, for
 * a block-theme site and a classic one (lib/agent/testing/tool-tokens.ts). Goal (issue 14): at most 4,000 each.
 * Run alone for the per-tool breakdown: `node --import tsx bench/tokens.ts`.
 */
import { offeredTokens } from "@/lib/agent/testing/tool-tokens";

export async function benchTokens(): Promise<Record<string, number>> {
  const block = await offeredTokens("block");
  const classic = await offeredTokens("classic");
  return {
    tool_tokens_block_theme: block.total,
    tool_tokens_classic_theme: classic.total,
    tools_offered_block_theme: block.tools.length,
    tools_offered_classic_theme: classic.tools.length,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const kind of ["block", "classic"] as const) {
    const { total, system, tools } = await offeredTokens(kind);
    console.log(`${kind} theme: ${total} tokens (system prompt ${system}, ${tools.length} tools)`);
    for (const tool of tools) console.log(`  ${tool.name.padEnd(22)} ${tool.tokens}`);
  }
}
