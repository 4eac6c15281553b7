/**
 * The semantic allowlist: which operations a run may use. The operator's `AGENT_OPERATIONS` (default: every
 * operation: with every visible change behind the owner's click, publishing and trashing are on too) intersected with what the site's token allows (its scopes, the
 * WordPress capabilities they lend, and the plugin's features). The plugin enforces scopes again on its side.
 */
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { SCOPES } from "@/lib/vocabulary";
import { visionEnabled } from "./vision";
import { ALL_OPERATIONS, operationsByName, type Operation } from "./operations";

/** What a paired site's token lets the agent do, as the plugin reported it. `null` = not reported. */
export type SiteGrant = {
  scopes: readonly string[] | null;
  capabilities: readonly string[] | null;
  features: readonly string[];
  /** Whether the active theme is a block theme; `null` = not reported (an older plugin): treated as classic. */
  blockTheme: boolean | null;
};

/** Every operation: each visible change (publishing, trashing, menus included) waits for the owner's click. */
export const DEFAULT_OPERATIONS: readonly string[] = ALL_OPERATIONS.map((op) => op.name);

/** The operator's allowlist: `AGENT_OPERATIONS`, or the default. Unknown names are ignored (and logged). */
export function configuredAllowlist(names: readonly string[] | undefined = env().AGENT_OPERATIONS): string[] {
  if (!names || names.length === 0) return [...DEFAULT_OPERATIONS];
  const unknown = names.filter((name) => !operationsByName.has(name));
  if (unknown.length > 0) log.warn("AGENT_OPERATIONS names unknown operations; ignoring them", { unknown });
  return [...new Set(names.filter((name) => operationsByName.has(name)))];
}

export type Exclusion = {
  operation: string;
  reason: "not_allowlisted" | "vision" | "scope" | "capability" | "plugin_feature" | "theme";
};

/** Which family of design operations fits the site. */
export const themeKind = (grant: Pick<SiteGrant, "blockTheme">): "block" | "classic" =>
  grant.blockTheme ? "block" : "classic";

export function allowedOperations(
  grant: SiteGrant,
  allowlist: readonly string[] = configuredAllowlist(),
): { operations: Operation[]; excluded: Exclusion[] } {
  const listed = new Set(allowlist);
  const operations: Operation[] = [];
  const excluded: Exclusion[] = [];
  for (const op of ALL_OPERATIONS) {
    const reason = !listed.has(op.name)
      ? "not_allowlisted"
      : op.vision && !visionEnabled()
        ? "vision"
        : // Scopes not reported: fail closed to reading.
          !(grant.scopes ?? ["site:read", "content:read"]).includes(op.scope)
          ? "scope"
          : grant.capabilities && op.capabilities?.some((cap) => !grant.capabilities!.includes(cap))
            ? "capability"
            : op.pluginFeature && !grant.features.includes(op.pluginFeature)
              ? "plugin_feature"
              : op.theme && op.theme !== themeKind(grant)
                ? "theme"
                : undefined;
    if (reason) excluded.push({ operation: op.name, reason });
    else operations.push(op);
  }
  return { operations, excluded };
}

/**
 * Operations the operator allows and the site fits, held back only because the token lacks their scope. The chat
 * offers them as locked tools: calling one changes nothing and says exactly how the owner grants the scope in
 * WordPress (lib/sites/permissions.ts), instead of the model guessing "I cannot change the design".
 */
export function lockedOperations(grant: SiteGrant, allowlist: readonly string[] = configuredAllowlist()): Operation[] {
  const held = grant.scopes;
  // Scopes not reported (an older plugin): nothing to say about granting them.
  if (!held) return [];
  const ifGranted = allowedOperations({ ...grant, scopes: SCOPES, capabilities: null }, allowlist).operations;
  return ifGranted.filter((op) => !held.includes(op.scope));
}

/** Reads a site's grant from what the plugin's `/sitewright/v1/info` reported (stored at pairing). */
export function grantFromSiteInfo(
  info: Record<string, unknown> | null | undefined,
  capabilities?: readonly string[] | null,
): SiteGrant {
  const token = (info?.token ?? {}) as { scopes?: unknown; capabilities?: unknown };
  const theme = (info?.theme ?? {}) as { isBlockTheme?: unknown };
  const strings = (value: unknown) =>
    Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : null;
  return {
    scopes: strings(token.scopes),
    capabilities: strings(token.capabilities) ?? (capabilities ? [...capabilities] : null),
    // A page builder the plugin edits is offered like a feature (`builder:elementor`: lib/agent/builder.ts).
    features: [...(strings(info?.features) ?? []), ...builderFeatures(info?.builders)],
    blockTheme: typeof theme.isBlockTheme === "boolean" ? theme.isBlockTheme : null,
  };
}

/** `builder:<name>` for each page builder the plugin reports it edits (`/info` → `builders`). */
function builderFeatures(builders: unknown): string[] {
  if (!Array.isArray(builders)) return [];
  return builders
    .map((builder) => (builder as { name?: unknown })?.name)
    .filter((name): name is string => typeof name === "string")
    .map((name) => `builder:${name}`);
}
