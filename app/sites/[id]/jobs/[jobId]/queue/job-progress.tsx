"use client";
/** A job's progress as it runs: a bar of the items planned so far, what was skipped or failed, and Cancel. */
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import type { JobView } from "@/lib/workflows/bulk-job";

const RUNNING = new Set(["planning", "applying"]);

/** Polls the job while it runs; the page is refreshed once it stops, so the queue shows what was planned. */
export function useJob(siteId: string, initial: JobView) {
  const router = useRouter();
  const [job, setJob] = useState(initial);
  // The page refreshed after an action (approve, undo): its server answer is newer than what was polled.
  useEffect(() => setJob(initial), [initial]);
  useEffect(() => {
    if (!RUNNING.has(job.status)) return;
    const timer = setTimeout(async () => {
      const response = await fetch(`/sites/${siteId}/jobs/${job.id}`).catch(() => undefined);
      const body = response?.ok ? ((await response.json()) as { job: JobView }) : undefined;
      if (!body) return setJob({ ...job });
      setJob(body.job);
      if (!RUNNING.has(body.job.status)) router.refresh();
    }, 1500);
    return () => clearTimeout(timer);
  }, [job, siteId, router]);
  return [job, setJob] as const;
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
  const { planned, skipped, failed, applied, tokens } = job.progress;
  const handled = Math.min(job.selection.count, planned + skipped + failed + applied);
  const cancel = async () => {
    const response = await fetch(`/sites/${siteId}/jobs/${job.id}/cancel`, { method: "POST" });
    if (response.ok) setJob(((await response.json()) as { job: JobView }).job);
  };
  return (
    <section aria-label="Job progress" data-testid="job" data-status={job.status}>
      <p role="status">
        <strong>{STATUS[job.status] ?? job.status}</strong>
        {job.error ? ` — ${job.error}` : null}
      </p>
      <progress max={job.selection.count} value={handled} aria-label="Items handled">
        {handled} of {job.selection.count}
      </progress>
      <p data-testid="job-counts">
        {handled} of {job.selection.count} items: {planned} waiting for your review, {applied} written (not visible to
        visitors, or approved), {skipped} skipped, {failed} failed.
        {tokens ? ` Model tokens: ${tokens} of ${job.limits.maxTokens}.` : null}
      </p>
      {job.status === "planning" || job.status === "ready" ? (
        <button type="button" onClick={cancel}>
          Cancel the job
        </button>
      ) : null}
    </section>
  );
}
