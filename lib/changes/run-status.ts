/**
 * What the owner reads while an Apply or Undo is under way (client-safe: the Changes page and a job's queue import
 * it). After a restart another instance finishes it (./journal.ts) and the set or job says `resumedAt`.
 */
export const RESUMING = "Resuming after a restart";

export function runningStatusLine(status: string, resumedAt?: string): string | undefined {
  const doing =
    status === "applying" ? "writing the approved changes…" : status === "undoing" ? "undoing the changes…" : undefined;
  if (!doing) return undefined;
  return resumedAt ? `${RESUMING}: ${doing}` : doing.charAt(0).toUpperCase() + doing.slice(1);
}
