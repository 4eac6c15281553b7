"use client";
/** A bulk job as it runs, polled from `GET /sites/:id/jobs/:jobId` while it plans or writes (the chat and the queue). */
import { useEffect, useState } from "react";

const RUNNING = new Set(["planning", "applying"]);

export const isRunning = (status: string) => RUNNING.has(status);

/** `onStopped` runs once the polled job stops running (the queue refreshes to show what was planned). */
export function useLiveJob<J extends { id: string; status: string }>(
  siteId: string,
  initial: J,
  onStopped?: () => void,
) {
  const [job, setJob] = useState(initial);
  // A newer server answer (the page refreshed after an action) replaces what was polled.
  useEffect(() => setJob(initial), [initial]);
  useEffect(() => {
    if (!RUNNING.has(job.status)) return;
    const timer = setTimeout(async () => {
      const response = await fetch(`/sites/${siteId}/jobs/${job.id}`).catch(() => undefined);
      const body = response?.ok ? ((await response.json()) as { job: J }) : undefined;
      if (!body) return setJob({ ...job });
      setJob(body.job);
      if (!RUNNING.has(body.job.status)) onStopped?.();
    }, 1500);
    return () => clearTimeout(timer);
  }, [job, siteId, onStopped]);
  return [job, setJob] as const;
}
