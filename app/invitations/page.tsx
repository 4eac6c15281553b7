import Link from "next/link";
import { currentSession } from "@/lib/auth/current";
import { describeInvitation } from "@/lib/teams/members";
import { ROLE_LABELS } from "@/lib/teams/roles";
import { acceptInvitationAction } from "./actions";

export const metadata = { title: "Invitation · Sitewright" };

const FAILURES: Record<string, string> = {
  forbidden: "This invitation was sent to another address. Log in with the address it was sent to.",
  token_expired: "This invitation has expired. Ask the site's owner for a new one.",
  invalid_token: "This invitation is not valid, or it was already used. Ask the site's owner for a new one.",
};

/** The page an invitation's link opens: sign up or log in as the invited address, then accept. */
export default async function InvitationPage({
  searchParams,
}: {
  searchParams: Promise<{ token?: string; failed?: string }>;
}) {
  const { token = "", failed } = await searchParams;
  const invitation = token ? await describeInvitation(token) : undefined;
  const session = await currentSession();
  if (failed || !invitation) {
    return (
      <main className="narrow">
        <h1>Invitation</h1>
        <p className="card error" role="alert">
          {FAILURES[failed ?? ""] ?? FAILURES.invalid_token}
        </p>
      </main>
    );
  }
  const here = `/invitations?token=${token}`;
  return (
    <main className="narrow">
      <h1>Join {invitation.site.name ?? invitation.site.url}</h1>
      <p>
        You are invited as {ROLE_LABELS[invitation.role]}. The invitation was sent to{" "}
        <strong>{invitation.email}</strong>.
      </p>
      {session ? (
        <form action={acceptInvitationAction}>
          <input type="hidden" name="token" value={token} />
          <button type="submit">Accept invitation</button>
        </form>
      ) : (
        <p>
          <Link className="button" href={`/signup?next=${encodeURIComponent(here)}`}>
            Create an account
          </Link>{" "}
          or <Link href={`/login?next=${encodeURIComponent(here)}`}>log in</Link> as {invitation.email} to accept.
        </p>
      )}
    </main>
  );
}
