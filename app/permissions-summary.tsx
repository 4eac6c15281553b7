/**
 * What a connected site lets Sitewright do, in the plugin's own words, and how to grant what is missing (in
 * WordPress, without pairing again). Shown by the wizard once the plugin answered and on the site's chat page.
 */
import { howToGrant, type Permissions } from "@/lib/sites/permissions";

export function PermissionsSummary({ permissions, compact = false }: { permissions: Permissions; compact?: boolean }) {
  const { granted, missing } = permissions;
  const list = (
    <>
      <ul className="plain" data-testid="granted-permissions">
        {granted.map((item) => (
          <li key={item.scope} data-scope={item.scope}>
            <strong>{item.label}</strong>
            <span className="muted"> · {item.explains}</span>
          </li>
        ))}
      </ul>
      {missing.length ? (
        <p className="warn" data-testid="missing-permissions">
          Not granted: {missing.map((item) => item.label).join(", ")}. To allow {missing.length === 1 ? "it" : "them"}:{" "}
          {howToGrant(missing.map((item) => item.scope))}
        </p>
      ) : (
        <p className="muted">Everything is granted. Changes visitors would see still wait for your approval.</p>
      )}
    </>
  );
  const title = `What Sitewright may do on this site (${granted.length} of ${granted.length + missing.length})`;
  if (compact) {
    return (
      <details data-testid="permissions" data-granted={granted.map((item) => item.scope).join(" ")}>
        <summary>{title}</summary>
        {list}
      </details>
    );
  }
  return (
    <section data-testid="permissions" data-granted={granted.map((item) => item.scope).join(" ")}>
      <h3>{title}</h3>
      {list}
    </section>
  );
}
