/** A rehearsal's state in one sentence: the review page says it once, and an action's outcome replaces it. */
const SENTENCES: Record<string, string> = {
  pending: "Not applied yet: your live site is unchanged until you apply these changes.",
  partially_applied:
    "Partly applied: some of these changes are on your live site; the rest wait for you to apply them.",
  applied: "Applied: your live site shows these changes.",
  discarded: "Discarded: nothing was changed on your live site.",
  undone: "Undone: your live site is as it was before.",
  partially_undone: "Partly undone: some of these changes were taken back on your live site.",
};

/** What the owner can still do when the sandbox is gone: nothing can be previewed or applied from it. */
export const GONE =
  "The sandbox these changes were tried in is gone (it expired or was deleted), so they can no longer be previewed or applied. Ask the assistant to make them again, in a new sandbox or on your live site, and discard this.";

export function rehearsalSentence(status: string, sandbox: "running" | "gone"): string {
  if (sandbox === "gone" && (status === "pending" || status === "partially_applied")) return GONE;
  return SENTENCES[status] ?? status.replaceAll("_", " ");
}
