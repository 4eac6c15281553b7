/**
 * A bulk job's counts, as the queue page and the chat's job card show them (docs/bulk-jobs.md, "Counts"). They are
 * computed from the job's items in one SQL statement (`jobItemCounts` in lib/db/queries/jobs.ts), every selected item
 * in exactly one of them, so they always add up to the items selected. Client-safe: the pages import it.
 */

import type { JobCounts } from "@/lib/db/schema";

export type { JobCounts };

export const NO_COUNTS: JobCounts = {
  toPlan: 0,
  waiting: 0,
  inProgress: 0,
  written: 0,
  approved: 0,
  rejected: 0,
  skipped: 0,
  failed: 0,
  undone: 0,
};

/** A job nothing has happened to yet: every selected item still to plan. */
export const countsBeforePlanning = (selected: number): JobCounts => ({ ...NO_COUNTS, toPlan: selected });

export const countsTotal = (counts: JobCounts) => Object.values(counts).reduce((sum, n) => sum + n, 0);

type JobState = { status: string; counts: JobCounts };

const WORDS: Array<[keyof JobCounts, (stopped: boolean) => string]> = [
  ["toPlan", (stopped) => (stopped ? "not planned (the job stopped)" : "still to plan")],
  ["waiting", () => "waiting for your review"],
  ["inProgress", () => "being written"],
  ["written", () => "written at once (visitors do not see them)"],
  ["approved", () => "approved and written"],
  ["rejected", () => "rejected"],
  ["skipped", () => "skipped"],
  ["failed", () => "not written (changed on the site since)"],
  ["undone", () => "undone"],
];

/** "30 items: 5 waiting for your review, 2 approved and written, 2 rejected, …": the counts that are not zero. */
export function describeCounts(job: JobState): string {
  const stopped = job.status !== "planning";
  const parts = WORDS.filter(([key]) => job.counts[key] > 0).map(
    ([key, word]) => `${job.counts[key]} ${word(stopped)}`,
  );
  const total = countsTotal(job.counts);
  return `${total} ${total === 1 ? "item" : "items"}: ${parts.join(", ") || "none"}.`;
}

/**
 * The progress bar: while the job plans, the items planned so far; after, the items settled (nothing more will
 * happen to them unless the owner undoes them): everything but what waits, is being written, or is still to plan.
 */
export function jobBar(job: JobState): { label: string; value: number; max: number } {
  const max = countsTotal(job.counts);
  const { toPlan, waiting, inProgress } = job.counts;
  if (job.status === "planning") return { label: "Items planned", value: max - toPlan, max };
  return { label: "Items settled", value: max - toPlan - waiting - inProgress, max };
}

/**
 * What the owner can still do with the job as a whole: cancel while it plans or something waits; approve what waits,
 * also while it still plans (the click covers the items the page drew: API.md v1.3); undo what is written.
 */
export function jobActions(job: JobState): { cancel: boolean; approveAll: boolean; undo: boolean } {
  const { waiting, written, approved } = job.counts;
  const open = job.status === "planning" || job.status === "ready";
  return {
    cancel: open && (job.status === "planning" || waiting > 0),
    approveAll: open && waiting > 0,
    undo: written + approved > 0 && job.status !== "applying",
  };
}

/** The job's state in a few words, from its status and, once it stopped, what its items came to. */
export function jobHeadline(job: JobState): string {
  const { written, approved, undone, waiting } = job.counts;
  const allUndone = undone > 0 && written + approved === 0;
  switch (job.status) {
    case "planning":
      return "Planning the changes…";
    case "ready":
      return waiting > 0 ? "Ready for your review" : "Reviewed";
    case "applying":
      return "Writing the approved changes…";
    case "done":
      return allUndone ? "Undone" : "Done";
    case "cancelled":
      return allUndone ? "Cancelled and undone" : "Cancelled";
    default:
      return "Stopped";
  }
}
