import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { currentSession } from "@/lib/auth/current";
import { isAppError } from "@/lib/errors";
import { actOnChangeSet, withActivity } from "@/lib/teams/change-set-acts";
import { recordSiteVisit } from "@/lib/teams/site-settings";
import { loadRehearsalReview } from "@/lib/workflows/review";
import { WhoDidWhat } from "../../changes/history/changes-list";
import { PendingReview } from "./pending-review";
import { AlsoWaiting } from "./also-waiting";
import { ReviewActions } from "./review-actions";
import styles from "./review.module.css";

export const metadata = { title: "Review changes · Sitewright" };

/** A change set's pages before (live) and after (the sandbox, through the preview), with Apply and Discard. */
export default async function ReviewPage({ params }: { params: Promise<{ id: string; changeSetId: string }> }) {
  const session = await currentSession();
  const { id, changeSetId } = await params;
  if (!session) redirect(`/login?next=${encodeURIComponent(`/sites/${id}/review/${changeSetId}`)}`);
  // Any member may look; the set is addressed as stored (whoever's chat made it), and the visit is recorded.
  const review = await actOnChangeSet(session.user, { siteId: id, changeSetId }, "show", async (request) => {
    const loaded = await loadRehearsalReview(request);
    return { ...loaded, changeSet: await withActivity(loaded.changeSet) };
  }).catch((error) => {
    if (isAppError(error) && error.status === 404) return undefined;
    throw error;
  });
  if (!review) notFound();
  await recordSiteVisit(session.user, id, session.idHash);
  const { changeSet, pages, site, alsoWaiting } = review;
  const rehearsal = changeSet.target === "sandbox";
  return (
    <main className={styles.review}>
      <p>
        <Link href={`/sites/${site.id}/chat`}>← Chat about {site.name ?? site.url}</Link>
      </p>
      <h1>{rehearsal ? "Changes tried in a sandbox" : "Changes on your live site"}</h1>
      <p data-testid="change-set-status">
        Status: <strong>{changeSet.status.replaceAll("_", " ")}</strong>
        {rehearsal && changeSet.status === "pending" ? " — your live site is unchanged until you apply." : null}
        {rehearsal && changeSet.status === "partially_applied"
          ? " — some of these changes are on your live site; the rest wait for you to apply them."
          : null}
      </p>
      <WhoDidWhat set={changeSet} />
      <ul>
        {changeSet.items.map((item) => (
          <li key={item.id}>
            <strong>{item.title}</strong>: {item.summary}
          </li>
        ))}
      </ul>
      {pages.map((page) => (
        <PagePair key={page.itemId} page={page} />
      ))}
      <AlsoWaiting siteId={site.id} changeSetId={changeSet.id} others={alsoWaiting} />
      {/* A live set waits for the owner's click here (an MCP client's proposal), or is already written. */}
      {rehearsal ? null : <PendingReview siteId={site.id} changeSet={changeSet} />}
      {rehearsal || changeSet.status !== "pending" ? (
        <ReviewActions
          siteId={site.id}
          changeSet={{ id: changeSet.id, status: changeSet.status, target: changeSet.target }}
          items={changeSet.items.map((item) => ({
            id: item.id,
            title: item.title,
            summary: item.summary,
            status: item.status,
            madeLive: Boolean(item.madeLiveBy),
          }))}
        />
      ) : null}
    </main>
  );
}

type Page = Awaited<ReturnType<typeof loadRehearsalReview>>["pages"][number];

/** One page before (the live site) and after (the sandbox, through the preview), side by side. */
function PagePair({ page }: { page: Page }) {
  return (
    <section className={styles.pair} aria-label={`${page.title}: before and after`}>
      <h2>{page.title}</h2>
      <div className={styles.frames}>
        <figure>
          <figcaption>
            Before (live site){" "}
            {page.liveUrl ? (
              <a href={page.liveUrl} target="_blank" rel="noreferrer">
                open
              </a>
            ) : null}
          </figcaption>
          {page.liveUrl ? (
            <iframe title={`${page.title} on the live site`} src={page.liveUrl} sandbox="" loading="lazy" />
          ) : (
            <p className="muted">New page: not on the live site yet.</p>
          )}
        </figure>
        <figure>
          <figcaption>
            After (sandbox preview){" "}
            {page.previewUrl ? (
              <a href={page.previewUrl} target="_blank" rel="noreferrer" data-testid="preview-link">
                open
              </a>
            ) : null}
          </figcaption>
          {page.previewUrl ? (
            <iframe title={`${page.title} in the sandbox`} src={page.previewUrl} loading="lazy" />
          ) : (
            <p className="muted">The sandbox is gone.</p>
          )}
        </figure>
      </div>
    </section>
  );
}
