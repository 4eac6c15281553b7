"use client";
/**
 * A job's progress: its state, a bar (items planned while it plans, items settled after), its counts (they add up
 * to the items selected: lib/jobs/counts.ts), its budget, and Cancel while there is something to cancel.
 */
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { runningStatusLine } from "@/lib/changes/run-status";
import { jobBudgetUse } from "@/lib/jobs/budget-use";
import { describeCounts, jobActions, jobBar, jobHeadline } from "@/lib/jobs/counts";
import type { JobView } from "@/lib/workflows/bulk-job";
import { BudgetUse } from "../../budget-use";
import { useLiveJob } from "../../use-live-job";
import { useHydrated } from "@/app/use-hydrated";

/** Polls the job while it runs; the page is refreshed once it stops, so the queue shows what was planned. */
export function useJob(siteId: string, initial: JobView) {
  const router = useRouter();
  return useLiveJob(siteId, initial, router.refresh);
}

export function JobProgressView({ siteId, initial }: { siteId: string; initial: JobView }) {
  const router = useRouter();
  const [job, setJob] = useJob(siteId, initial);
  const [cancelling, startCancel] = useTransition();
  const hydrated = useHydrated();
  const [error, setError] = useState<string>();
  const bar = jobBar(job);
  const cancel = () =>
    startCancel(async () => {
      const response = await fetch(`/sites/${siteId}/jobs/${job.id}/cancel`, { method: "POST" }).catch(() => undefined);
      const body = response ? ((await response.json().catch(() => ({}))) as { job?: JobView }) : {};
      startCancel(() => {
        if (body.job) setJob(body.job);
        setError(response?.ok ? undefined : "The job could not be cancelled. Try again.");
        router.refresh(); // what was waiting is rejected now: the queue shows it
      });
    });
  return (
    <section aria-label="Job progress" data-testid="job" data-status={job.status}>
      <p role="status">
        <strong data-testid="job-headline">
          {job.status === "applying"
            ? (runningStatusLine(job.status, job.resumedAt) ?? jobHeadline(job))
            : jobHeadline(job)}
        </strong>
        {job.error ? ` — ${job.error}` : null}
      </p>
      <p>
        {bar.label}: {bar.value} of {bar.max}{" "}
        <progress max={bar.max} value={bar.value} aria-label={bar.label}>
          {bar.value} of {bar.max}
        </progress>
      </p>
      <p data-testid="job-counts">{describeCounts(job)}</p>
      <BudgetUse label="This job's own budget" figures={jobBudgetUse(job)} testId="job-budget" />
      {jobActions(job).cancel ? (
        <button type="button" onClick={cancel} disabled={cancelling || !hydrated}>
          {cancelling ? "Cancelling…" : "Cancel the job"}
        </button>
      ) : null}
      {error ? <p role="alert">{error}</p> : null}
    </section>
  );
}
