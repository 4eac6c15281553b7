import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { currentSession } from "@/lib/auth/current";
import { recordSiteVisit } from "@/lib/teams/site-settings";
import { loadChangesPage } from "@/lib/changes/page";
import { ChangesList } from "./changes-list";

export const metadata = { title: "Changes · Sitewright" };

/** A site's change sets, newest first: what each chat turn changed, its status, and Undo. */
export default async function ChangesPage({ params }: { params: Promise<{ id: string }> }) {
  const session = await currentSession();
  const { id } = await params;
  if (!session) redirect(`/login?next=${encodeURIComponent(`/sites/${id}/changes/history`)}`);
  const data = await loadChangesPage({ userId: session.userId, siteId: id });
  if (!data) notFound();
  await recordSiteVisit(session.user, data.site.id, session.idHash);
  if (data.site.id !== id) redirect(`/sites/${data.site.id}/changes/history`);
  return (
    <main>
      <p>
        <Link href={`/sites/${id}/chat`}>← Chat</Link>
      </p>
      <h1>Changes on {data.site.name ?? data.site.url}</h1>
      <p className="muted">
        Every change the assistant made, one entry per chat turn. Undo puts the items back exactly as they were, and
        refuses if someone edited them since, so a newer edit is never overwritten.
      </p>
      <ChangesList siteId={id} firstPage={data.changeSets} />
    </main>
  );
}
