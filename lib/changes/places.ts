/**
 * Where visitors would see a change, in the words every card uses (chat tool card, review page, Changes page, an
 * MCP answer): "Visitors would see this in: its attachment page, post 12 “Our bakery” shows it in a [gallery]."
 * Client-safe: pages import it.
 */
import type { VisiblePlace } from "@/lib/db/schema";

/** The places, each once, in the site's order; "" when there are none. */
export function placesSentence(places: readonly VisiblePlace[] | undefined): string {
  const labels = [...new Set((places ?? []).map((place) => place.label.trim()).filter(Boolean))];
  return labels.length ? `Visitors would see this in: ${labels.join("; ")}.` : "";
}
