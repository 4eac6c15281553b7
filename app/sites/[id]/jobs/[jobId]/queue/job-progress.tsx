"use client";
/** A job's progress as it runs: a bar of the items planned so far, what was skipped or failed, its budget, Cancel. */
import { useRouter } from "next/navigation";
import { runningStatusLine } from "@/lib/changes/run-status";
import { jobBudgetUse } from "@/lib/jobs/budget-use";
import type { JobView } from "@/lib/workflows/bulk-job";
import { BudgetUse } from "../../budget-use";
import { useLiveJob } from "../../use-live-job";

/** Polls the job while it runs; the page is refreshed once it stops, so the queue shows what was planned. */
export function useJob(siteId: string, initial: JobView) {
  const router = useRouter();
  return useLiveJob(siteId, initial, router.refresh);
}

const STATUS: Record<string, string> = {
  planning: "Planning the changes…",
  ready: "Ready for your review",
  applying: "Writing the approved changes…",
  done: "Done",
  cancelled: "Cancelled",
  failed: "Stopped",
};

export function JobProgressView({ siteId, initial }: { siteId: string; initial: JobView }) {
  const [job, setJob] = useJob(siteId, initial);
  const { planned, skipped, failed, applied } = job.progress;
  const handled = Math.min(job.selection.count, planned + skipped + failed + applied);
  const cancel = async () => {
    const response = await fetch(`/sites/${siteId}/jobs/${job.id}/cancel`, { method: "POST" });
    if (response.ok) setJob(((await response.json()) as { job: JobView }).job);
  };
  return (
    <section aria-label="Job progress" data-testid="job" data-status={job.status}>
      <p role="status">
        <strong>
          {(job.status === "applying" ? runningStatusLine(job.status, job.resumedAt) : STATUS[job.status]) ??
            job.status}
        </strong>
        {job.error ? ` — ${job.error}` : null}
      </p>
      <progress max={job.selection.count} value={handled} aria-label="Items handled">
        {handled} of {job.selection.count}
      </progress>
      <p data-testid="job-counts">
        {handled} of {job.selection.count} items: {planned} waiting for your review, {applied} written (not visible to
        visitors, or approved), {skipped} skipped, {failed} failed.
      </p>
      <BudgetUse label="This job's own budget" figures={jobBudgetUse(job)} testId="job-budget" />
      {job.status === "planning" || job.status === "ready" ? (
        <button type="button" onClick={cancel}>
          Cancel the job
        </button>
      ) : null}
    </section>
  );
}
