/**
 * The applications (MCP clients) the owner connected over OAuth (docs/mcp.md): each with the name it gave itself,
 * what it may do, on how many sites, when it was last used, and Disconnect, which ends every token it holds.
 */
import { ConfirmButton } from "@/app/confirm-button";
import { listGrantsForUser } from "@/lib/db/queries";
import { revokeConnectedClientAction } from "./client-actions";

export async function ConnectedClients({ userId }: { userId: string }) {
  const grants = await listGrantsForUser({ userId });
  return (
    <section className="card" aria-labelledby="clients-title" data-testid="connected-clients">
      <h2 id="clients-title">Connected applications</h2>
      {grants.length === 0 ? (
        <p className="muted">
          No application is connected. AI agents such as Claude, ChatGPT or VS Code can connect to Sitewright at{" "}
          <code>/mcp</code>; their changes that visitors would see still wait for your approval here.
        </p>
      ) : (
        <ul>
          {grants.map((grant) => (
            <li key={grant.id}>
              <strong>{grant.clientName}</strong> (unverified name) ·{" "}
              {grant.access === "read" ? "read only" : "reads and proposes changes"} · {grant.siteIds.length}{" "}
              {grant.siteIds.length === 1 ? "site" : "sites"} ·{" "}
              {grant.lastUsedAt
                ? `last used ${grant.lastUsedAt.toISOString().slice(0, 16).replace("T", " ")} UTC`
                : "not used yet"}{" "}
              <ConfirmButton
                label="Disconnect"
                accessibleLabel={`Disconnect ${grant.clientName}`}
                title={`Disconnect ${grant.clientName}?`}
                confirmLabel="Disconnect"
                action={revokeConnectedClientAction}
                fields={{ grantId: grant.id }}
              >
                <p>It can no longer read or propose anything; its tokens stop working at once.</p>
              </ConfirmButton>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
