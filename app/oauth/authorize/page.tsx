/**
 * The consent page an MCP client sends the owner to (docs/mcp.md): it names the client as it registered itself
 * (unverified), where it will send the owner back, the sites it may use and whether it may only read or also propose
 * changes — proposals that visitors would see still wait for the owner's approval in Sitewright.
 */
import { redirect } from "next/navigation";
import { currentSession } from "@/lib/auth/current";
import {
  AUTHORIZE_PARAMS,
  type AuthorizeParams,
  type AuthorizeRequest,
  checkAuthorizeRequest,
  consentProblemText,
  grantableSites,
} from "@/lib/oauth/authorize";

export const metadata = { title: "Connect an application · Sitewright" };
export const dynamic = "force-dynamic";

const PARAMS = AUTHORIZE_PARAMS;

export default async function AuthorizePage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const raw = await searchParams;
  const params: AuthorizeParams = {};
  const query = new URLSearchParams();
  for (const name of PARAMS) {
    const value = raw[name];
    if (typeof value === "string") {
      params[name] = value;
      query.set(name, value);
    }
  }
  const session = await currentSession();
  if (!session) redirect(`/login?next=${encodeURIComponent(`/oauth/authorize?${query.toString()}`)}`);
  const check = await checkAuthorizeRequest(params);
  if (!check.ok && check.redirect) redirect(check.redirect);
  if (!check.ok) {
    return (
      <main className="narrow">
        <h1>This connection cannot go on</h1>
        <p role="alert">{check.message}</p>
        <p>Go back to the application and connect again; if it keeps happening, its makers can help.</p>
      </main>
    );
  }
  const sites = await grantableSites(session.user.id);
  // The link carries a code; only our own sentence for it is shown, never the link's text.
  const problem = consentProblemText(raw.problem);
  return <Consent request={check.request} params={params} sites={sites} problem={problem} />;
}

/** The consent: who asks, where the browser goes back, which sites, and what it may do. */
function Consent({
  request,
  params,
  sites,
  problem,
}: {
  request: AuthorizeRequest;
  params: AuthorizeParams;
  sites: Awaited<ReturnType<typeof grantableSites>>;
  problem?: string;
}) {
  const returnHost = new URL(request.redirectUri).host;
  return (
    <main className="narrow">
      <h1>Connect “{request.client.name}” to Sitewright?</h1>
      <p>
        <strong>{request.client.name}</strong> is the name this application gave itself; Sitewright has not verified it.
        After you answer, you go back to <strong>{returnHost}</strong>.
      </p>
      {problem ? <p role="alert">{problem}</p> : null}
      <form method="post" action="/oauth/authorize/decision" className="card form" data-testid="consent-form">
        {PARAMS.map((name) =>
          params[name] !== undefined ? <input key={name} type="hidden" name={name} value={params[name]} /> : null,
        )}
        <SiteChoice sites={sites} />
        <AccessChoice maxAccess={request.maxAccess} />
        <p className="muted">You can disconnect it at any time from your account page.</p>
        <div className="actions">
          <button type="submit" name="decision" value="approve" disabled={sites.length === 0}>
            Connect
          </button>{" "}
          <button type="submit" name="decision" value="deny" className="secondary">
            Cancel
          </button>
        </div>
      </form>
    </main>
  );
}

function SiteChoice({ sites }: { sites: Awaited<ReturnType<typeof grantableSites>> }) {
  if (sites.length === 0) return <p>You have no connected site yet: connect one from the Sites page first.</p>;
  return (
    <fieldset>
      <legend>Sites it may use</legend>
      {sites.map((site) => (
        <label key={site.id} className="choice">
          <input type="checkbox" name="site" value={site.id} defaultChecked={sites.length === 1} />{" "}
          {site.name ? `${site.name} (${site.url})` : site.url}
        </label>
      ))}
    </fieldset>
  );
}

function AccessChoice({ maxAccess }: { maxAccess: AuthorizeRequest["maxAccess"] }) {
  return (
    <fieldset>
      <legend>What it may do</legend>
      <label className="choice">
        <input type="radio" name="access" value="read" defaultChecked={maxAccess === "read"} /> Read only: pages, posts,
        settings and design
      </label>
      {maxAccess === "propose" ? (
        <label className="choice">
          <input type="radio" name="access" value="propose" defaultChecked /> Read and propose changes: drafts and
          private pages are written at once; every change visitors would see waits for your approval here
        </label>
      ) : null}
    </fieldset>
  );
}
