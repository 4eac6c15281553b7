import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { currentSession } from "@/lib/auth/current";
import { isAppError } from "@/lib/errors";
import { loadJobReview } from "@/lib/workflows/bulk-job";
import { actOnJob } from "@/lib/workflows/member-jobs";
import { JobProgressView } from "./job-progress";
import { JobQueue } from "./job-queue";

export const metadata = { title: "Review a bulk job · Sitewright" };

/** A bulk job as one review queue (docs/bulk-jobs.md): its progress, then every planned item with its diff. */
export default async function JobPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string; jobId: string }>;
  searchParams: Promise<{ cursor?: string }>;
}) {
  const session = await currentSession();
  const { id, jobId } = await params;
  const { cursor } = await searchParams;
  if (!session) redirect(`/login?next=${encodeURIComponent(`/sites/${id}/jobs/${jobId}/queue`)}`);
  // Any member may look; the job is addressed under the account that started it (docs/teams.md).
  const review = await actOnJob(session.user, { siteId: id, jobId }, "show", (request) =>
    loadJobReview({ ...request, cursor }),
  ).catch((error) => {
    if (isAppError(error) && (error.status === 404 || error.status === 400)) return undefined;
    throw error;
  });
  if (!review) notFound();
  const { site, job, page, approveAll } = review;
  return (
    <main>
      <p>
        <Link href={`/sites/${site.id}/chat?c=${job.conversationId}`}>← Chat about {site.name ?? site.url}</Link>
      </p>
      <h1>
        {job.selection.count} {job.selection.description}
      </h1>
      <JobProgressView siteId={site.id} initial={job} />
      {page.changeSet.target === "sandbox" ? (
        // A rehearsal is applied, discarded and undone as one, on its review page (docs/bulk-jobs.md).
        <p data-testid="job-rehearsal">
          This job works in the conversation's sandbox copy: your live site is unchanged until you apply it.{" "}
          <Link href={`/sites/${site.id}/review/${job.changeSetId}`}>Review it and apply it to the live site</Link>
        </p>
      ) : (
        <>
          <JobQueue siteId={site.id} job={job} items={page.changeSet.items} approveAll={approveAll} />
          {page.nextCursor ? (
            <p>
              <Link href={`/sites/${site.id}/jobs/${job.id}/queue?cursor=${encodeURIComponent(page.nextCursor)}`}>
                Next items
              </Link>
            </p>
          ) : null}
        </>
      )}
    </main>
  );
}
