import Link from "next/link";
import { currentSession } from "@/lib/auth/current";
import { listSites } from "@/lib/sites/sites";
import { disconnectSiteAction } from "./connect/actions";

export default async function HomePage() {
  const session = await currentSession();
  if (!session) {
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
  const sites = await listSites({ userId: session.userId });
  return (
    <main>
      <h1>Your sites</h1>
      {sites.length === 0 ? <p>No site connected yet.</p> : null}
      {sites.length ? (
        <table data-testid="sites">
          <thead>
            <tr>
              <th>Site</th>
              <th>Status</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {sites.map((site) => (
              <tr key={site.id}>
                <td>
                  {site.name ?? site.url}
                  <br />
                  <small className="muted">{site.url}</small>
                </td>
                <td>{site.status}</td>
                <td>
                  {site.status === "active" ? <Link href={`/sites/${site.id}/chat`}>Chat</Link> : null}{" "}
                  <form action={disconnectSiteAction} style={{ display: "inline" }}>
                    <input type="hidden" name="siteId" value={site.id} />
                    <button type="submit" className="link">
                      {site.status === "active" || site.status === "redeemed" ? "Disconnect" : "Remove"}
                    </button>
                  </form>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <p>
        <Link className="button" href="/connect">
          Connect a WordPress site
        </Link>
      </p>
    </main>
  );
}
