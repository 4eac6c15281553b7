import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { currentSession } from "@/lib/auth/current";
import { isAppError } from "@/lib/errors";
import { siteAccess } from "@/lib/teams/access";
import { actOnChangeSet, withActivity } from "@/lib/teams/change-set-acts";
import { can } from "@/lib/teams/roles";
import { recordSiteVisit } from "@/lib/teams/site-settings";
import { loadRehearsalReview } from "@/lib/workflows/review";
import { WhoDidWhat } from "../../changes/history/changes-list";
import { CombinedDiff } from "../../chat/change-diff";
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
  const { changeSet, rows, pages, site, alsoWaiting, sandbox } = review;
  return (
    <main className={styles.review}>
      <p>
        <Link href={`/sites/${site.id}/chat`}>← Chat about {site.name ?? site.url}</Link>
      </p>
      <h1>{sandbox ? "Changes tried in a sandbox" : "Changes on your live site"}</h1>
      <WhoDidWhat set={changeSet} />
      {sandbox ? (
        <section aria-labelledby="changes-title">
          <h2 id="changes-title">What changes</h2>
          <CombinedDiff rows={rows} />
        </section>
      ) : null}
      {pages.map((page) => (
        <PagePair key={page.itemId} page={page} sandbox={sandbox} />
      ))}
      <AlsoWaiting siteId={site.id} changeSetId={changeSet.id} others={sandbox === "running" ? alsoWaiting : []} />
      {/* A live set waits for the owner's click here (an MCP client's proposal), or is already written. */}
      {sandbox ? null : (
        <PendingReview
          siteId={site.id}
          changeSet={changeSet}
          rows={rows}
          refusal={await approvalRefusal(session.userId, site.id, changeSet.requestedBy?.userId)}
        />
      )}
      {sandbox || changeSet.status !== "pending" ? (
        <ReviewActions
          siteId={site.id}
          changeSet={{ id: changeSet.id, status: changeSet.status, target: changeSet.target }}
          sandbox={sandbox ?? undefined}
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

/** Why the person may not approve this set here, in words (the routes refuse it anyway), or nothing. */
async function approvalRefusal(userId: string, siteId: string, askedBy: string | undefined) {
  const { role, site } = await siteAccess({ userId, siteId }, "read");
  if (!can(role, "approve"))
    return "Your role lets you ask for changes; the site's owner or an approver approves them.";
  if (site.requireSecondPerson && askedBy === userId)
    return "This site asks for a second person: you asked for this change, so someone else approves it.";
  return undefined;
}

type Page = Awaited<ReturnType<typeof loadRehearsalReview>>["pages"][number];

/**
 * A rehearsal's page before (the live site) and after (the sandbox, through the preview), side by side; a change on
 * the live site's page as it is there now (the diff above says what changed). Nothing here mentions a sandbox that
 * was never used.
 */
function PagePair({ page, sandbox }: { page: Page; sandbox: "running" | "gone" | null }) {
  const live = (caption: string) => (
    <figure>
      <figcaption>
        {caption}{" "}
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
  );
  if (!sandbox)
    return (
      <section className={styles.pair} aria-label={`${page.title} on your live site`}>
        <h2>{page.title}</h2>
        <div className={styles.frames}>{live("On your live site now")}</div>
      </section>
    );
  return (
    <section className={styles.pair} aria-label={`${page.title}: before and after`}>
      <h2>{page.title}</h2>
      <div className={styles.frames}>
        {live("Before (live site)")}
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
            <p className="muted">No preview: the sandbox these changes were tried in is gone.</p>
          )}
        </figure>
      </div>
    </section>
  );
}
