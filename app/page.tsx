import Link from "next/link";
import { currentSession } from "@/lib/auth/current";
import { type DashboardSite, loadDashboard } from "@/lib/sites/dashboard";
import { listSitesSharedWith } from "@/lib/teams/members";
import { ConfirmButton } from "./confirm-button";
import { disconnectSiteAction } from "./connect/actions";
import { RelativeTime } from "./relative-time";

const hostOf = (url: string) => url.replace(/^https?:\/\//, "");

function SiteItem({ site }: { site: DashboardSite }) {
  const host = hostOf(site.url);
  return (
    <li className="site card" data-testid="site" data-status={site.status}>
      <div className="site-main">
        <strong className="site-name">{site.name ?? host}</strong>
        <small className="muted site-url">{site.url}</small>
      </div>
      <div className="site-meta">
        <span className={`status status-${site.status}`}>{site.statusText}</span>
        <small className="muted">
          {site.lastActivityAt ? (
            <>
              Last activity <RelativeTime at={site.lastActivityAt} />
            </>
          ) : (
            "No activity yet"
          )}
        </small>
      </div>
      <div className="site-actions">
        {site.status === "active" ? (
          <>
            <Link className="button" href={`/sites/${site.id}/chat`} aria-label={`Chat about ${host}`}>
              Chat
            </Link>
            <Link href={`/sites/${site.id}/team`} aria-label={`Team for ${host}`}>
              Team
            </Link>
          </>
        ) : site.status === "pending" || site.status === "redeemed" ? (
          <Link className="button" href={`/connect?site=${site.id}`} aria-label={`Finish connecting ${host}`}>
            Finish connecting
          </Link>
        ) : null}
        <ConfirmButton
          label={site.status === "active" || site.status === "redeemed" ? "Disconnect" : "Cancel pairing"}
          accessibleLabel={`${site.status === "active" || site.status === "redeemed" ? "Disconnect" : "Cancel pairing"} ${host}`}
          title={
            site.status === "active" || site.status === "redeemed" ? `Disconnect ${host}?` : `Cancel pairing ${host}?`
          }
          confirmLabel={site.status === "active" || site.status === "redeemed" ? "Disconnect" : "Cancel pairing"}
          action={disconnectSiteAction}
          fields={{ siteId: site.id }}
        >
          <p>
            Sitewright will ask the plugin to revoke its key and delete its own copy. The assistant can no longer change
            this site. Your conversations about it stay here; they come back if you connect it again.
          </p>
        </ConfirmButton>
      </div>
    </li>
  );
}

/** The sites other owners let this person in on, with their role and the pages it opens (docs/teams.md). */
function SharedSites({ sites }: { sites: Awaited<ReturnType<typeof listSitesSharedWith>> }) {
  if (!sites.length) return null;
  return (
    <section aria-labelledby="shared-title" data-testid="shared-sites">
      <h2 id="shared-title">Shared with you</h2>
      <ul className="plain">
        {sites.map((site) => (
          <li key={site.id} data-testid="shared-site">
            <strong>{site.name ?? hostOf(site.url)}</strong> <small className="muted">{site.url}</small> · you are{" "}
            {site.role} · <Link href={`/sites/${site.id}/chat`}>Chat</Link> ·{" "}
            <Link href={`/sites/${site.id}/changes/history`}>Changes</Link> ·{" "}
            <Link href={`/sites/${site.id}/team`}>Team</Link>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** What a visitor who is not signed in sees. */
function Welcome() {
  return (
    <main className="narrow">
      <h1>Edit your WordPress site by chatting</h1>
      <p>Connect your site once, then ask for changes in plain words. Every change is checked and logged.</p>
      <p>
        <Link className="button" href="/signup">
          Create an account
        </Link>{" "}
        or <Link href="/login">log in</Link>.
      </p>
    </main>
  );
}

export default async function HomePage() {
  const session = await currentSession();
  if (!session) return <Welcome />;
  const { sites, disconnected, abandoned } = await loadDashboard({ userId: session.userId });
  const shared = await listSitesSharedWith({ userId: session.userId });
  return (
    <main>
      <div className="page-head">
        <h1>Your sites</h1>
        <Link className="button" href="/connect">
          Connect a WordPress site
        </Link>
        <Link href="/sandboxes">Sandboxes</Link>
      </div>
      {sites.length === 0 ? <p>No site connected yet.</p> : null}
      {sites.length ? (
        <ul className="sites" data-testid="sites">
          {sites.map((site) => (
            <SiteItem key={site.id} site={site} />
          ))}
        </ul>
      ) : null}

      <SharedSites sites={shared} />

      {disconnected.length ? (
        <section aria-labelledby="disconnected-title" data-testid="disconnected">
          <h2 id="disconnected-title">Disconnected sites</h2>
          <ul className="plain">
            {disconnected.map((site) => (
              <li key={site.id}>
                <strong>{site.name ?? hostOf(site.url)}</strong> <small className="muted">{site.url}</small> ·{" "}
                <Link href={`/sites/${site.id}/chat`}>Conversations</Link> ·{" "}
                <Link href={`/connect?url=${encodeURIComponent(site.url)}`}>Connect again</Link>
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      {abandoned.length ? (
        <details className="abandoned" data-testid="abandoned">
          <summary>
            {abandoned.length} unfinished pairing {abandoned.length === 1 ? "attempt" : "attempts"}
          </summary>
          <p className="muted">Codes that expired, were entered wrong five times, or were replaced by a newer code.</p>
          <ul className="plain">
            {abandoned.map((site) => (
              <li key={site.id}>
                {hostOf(site.url)} · <span className={`status status-${site.status}`}>{site.statusText}</span> ·{" "}
                <ConfirmButton
                  label="Remove"
                  accessibleLabel={`Remove the ${site.statusText.toLowerCase()} attempt for ${hostOf(site.url)}`}
                  title="Remove this pairing attempt?"
                  confirmLabel="Remove"
                  action={disconnectSiteAction}
                  fields={{ siteId: site.id }}
                >
                  <p>It no longer works; removing it only tidies this list.</p>
                </ConfirmButton>
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </main>
  );
}
