/**
 * Text the agent writes, spelled the way WordPress stores it: kses (which a site applies to the new bytes of every
 * write by a user without unfiltered_html) turns a bare `&` into `&amp;`, and a title is trimmed. Written this way
 * first, what the owner approves is byte for byte what the site stores, and the plugin's write = plan check
 * (`409 sitewright_filtered`) is left for what really changes: markup the agent may not write.
 */

const BARE_AMPERSAND = /&(?!(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z][a-zA-Z0-9]{1,31});)/g;

export function asStoredMarkup(text: string): string {
  return text.replace(BARE_AMPERSAND, "&amp;");
}

export function asStoredTitle(text: string): string {
  return asStoredMarkup(text.trim());
}
