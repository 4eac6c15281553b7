/**
 * What a paired site's token may do, in the owner's words, and exactly how the owner grants what is missing: in
 * WordPress, on the plugin's screen, without pairing again (the plugin saves new scopes on the same token and
 * reports them in `/info`). Client-safe: the wizard, the chat page and the agent all say it the same way.
 */
import { PERMISSIONS_PLACE, SAVE_PERMISSIONS_BUTTON, SCOPE_WORDS, SCOPES, type Scope } from "@/lib/vocabulary";

/**
 * The scopes the plugin reported for our token: `/info`'s `token.scopes`, or at redeem (before the first `/info`)
 * the `scopes` the plugin sent with the site. `null` when it said nothing (an older plugin).
 */
export function grantedScopes(siteInfo: Record<string, unknown> | null | undefined): Scope[] | null {
  const token = siteInfo?.token as { scopes?: unknown } | undefined;
  const reported = Array.isArray(token?.scopes) ? token.scopes : siteInfo?.scopes;
  if (!Array.isArray(reported)) return null;
  return SCOPES.filter((scope) => reported.includes(scope));
}

export type Permissions = {
  granted: Array<{ scope: Scope; label: string; explains: string }>;
  missing: Array<{ scope: Scope; label: string; explains: string }>;
};

/** Every scope, split into granted and not, with its words, in the plugin's order. */
export function describePermissions(scopes: readonly string[]): Permissions {
  const words = (scope: Scope) => ({ scope, ...SCOPE_WORDS[scope] });
  return {
    granted: SCOPES.filter((scope) => scopes.includes(scope)).map(words),
    missing: SCOPES.filter((scope) => !scopes.includes(scope)).map(words),
  };
}

const quoted = (scope: Scope) => `“${SCOPE_WORDS[scope].label}”`;

/** "In WordPress, go to Settings → Sitewright, tick “Change the design” and click Save permissions. …" */
export function howToGrant(scopes: readonly Scope[]): string {
  const wanted = SCOPES.filter((scope) => scopes.includes(scope));
  const ticks =
    wanted.length <= 1
      ? quoted(wanted[0] ?? "site:read")
      : `${wanted.slice(0, -1).map(quoted).join(", ")} and ${quoted(wanted.at(-1)!)}`;
  return `In WordPress, go to ${PERMISSIONS_PLACE}, tick ${ticks} and click ${SAVE_PERMISSIONS_BUTTON}. You do not need to pair the site again: Sitewright picks the change up on your next message.`;
}

/** What the assistant says when a request needs a scope the owner has not granted: why, then how to grant it. */
export function scopeRefusal(scope: Scope): string {
  const what = SCOPE_WORDS[scope].label;
  return `Not done: this site has not given Sitewright the permission “${what}”. ${howToGrant([scope])}`;
}
