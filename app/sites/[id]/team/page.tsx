import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { currentSession } from "@/lib/auth/current";
import { isAppError } from "@/lib/errors";
import { siteAccess } from "@/lib/teams/access";
import { listTeam } from "@/lib/teams/members";
import { can, ROLE_LABELS } from "@/lib/teams/roles";
import { recordSiteVisit } from "@/lib/teams/site-settings";
import { changeRoleAction, inviteAction, removeMemberAction, secondPersonAction } from "./actions";

export const metadata = { title: "Team · Sitewright" };

/** What each outcome code the actions send back means, in our own words (never text from the request). */
const OUTCOMES: Record<string, { ok: boolean; text: string }> = {
  invited: { ok: true, text: "Invitation sent. The link works once, for 7 days." },
  "role-changed": { ok: true, text: "Role changed. What they held for this site under the old role has ended." },
  removed: { ok: true, text: "Member removed. Their sandboxes, previews and MCP access for this site have ended." },
  saved: { ok: true, text: "Setting saved." },
  "error-invalid_input": { ok: false, text: "Enter a valid e-mail address (not your own) and a role." },
  "error-forbidden": { ok: false, text: "Only the site's owner can do that." },
  "error-not_found": { ok: false, text: "That member is no longer on this site." },
};
const INVITABLE = ["approver", "editor", "viewer"] as const;

/** The site's team: members and their roles, invitations, the second-person setting and the audit export. */
export default async function TeamPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ outcome?: string }>;
}) {
  const session = await currentSession();
  const { id } = await params;
  if (!session) redirect(`/login?next=${encodeURIComponent(`/sites/${id}/team`)}`);
  const access = await siteAccess({ userId: session.userId, siteId: id }, "read").catch((error) => {
    if (isAppError(error) && error.code === "not_found") notFound();
    throw error;
  });
  await recordSiteVisit(session.user, id, session.idHash);
  const team = await listTeam(session.user, id);
  const owner = access.role === "owner";
  const outcome = OUTCOMES[(await searchParams).outcome ?? ""];
  const siteName = access.site.name ?? access.site.url;
  return (
    <main>
      <p>
        <Link href={`/sites/${id}/chat`}>← Chat</Link> · <Link href={`/sites/${id}/changes/history`}>Changes</Link>
      </p>
      <h1>Team for {siteName}</h1>
      <p className="muted">Your role: {ROLE_LABELS[access.role]}.</p>
      {outcome ? (
        <p className={`card ${outcome.ok ? "ok" : "error"}`} role={outcome.ok ? "status" : "alert"}>
          {outcome.text}
        </p>
      ) : null}
      <MembersTable siteId={id} members={team.members} owner={owner} />
      {owner ? <OwnerSections siteId={id} team={team} /> : null}
      {can(access.role, "audit") ? (
        <section aria-labelledby="audit-title">
          <h2 id="audit-title">Audit log</h2>
          <p className="muted">
            Every act on this site, chained and signed. Check an export offline with{" "}
            <code>npm run audit:verify &lt;file&gt;</code>.
          </p>
          <a className="button" href={`/sites/${id}/audit/export`} download>
            Export audit log
          </a>
        </section>
      ) : null}
    </main>
  );
}

/** Who works on the site and in which role; the owner changes a role or removes someone in place. */
function MembersTable(props: {
  siteId: string;
  members: Awaited<ReturnType<typeof listTeam>>["members"];
  owner: boolean;
}) {
  const { siteId, members, owner } = props;
  return (
    <section aria-labelledby="members-title">
      <h2 id="members-title">Members</h2>
      <table data-testid="members">
        <thead>
          <tr>
            <th scope="col">Person</th>
            <th scope="col">Role</th>
            {owner ? <th scope="col">Change</th> : null}
          </tr>
        </thead>
        <tbody>
          {members.map((member) => (
            <tr key={member.id} data-testid="member">
              <td>
                {member.name ? `${member.name} ` : ""}
                <small className="muted">{member.email}</small>
              </td>
              <td>{member.role}</td>
              {owner ? (
                <td>
                  <form action={changeRoleAction} className="inline">
                    <input type="hidden" name="siteId" value={siteId} />
                    <input type="hidden" name="memberId" value={member.id} />
                    <label>
                      <span className="visually-hidden">Role of {member.email}</span>
                      <select name="role" defaultValue={member.role}>
                        {INVITABLE.map((role) => (
                          <option key={role} value={role}>
                            {role}
                          </option>
                        ))}
                      </select>
                    </label>{" "}
                    <button type="submit">Change role</button>
                  </form>{" "}
                  <form action={removeMemberAction} className="inline">
                    <input type="hidden" name="siteId" value={siteId} />
                    <input type="hidden" name="memberId" value={member.id} />
                    <button type="submit" aria-label={`Remove ${member.email}`}>
                      Remove
                    </button>
                  </form>
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
      {members.length === 0 ? <p>Nobody else works on this site yet.</p> : null}
    </section>
  );
}

function OwnerSections({ siteId, team }: { siteId: string; team: Awaited<ReturnType<typeof listTeam>> }) {
  return (
    <>
      <section aria-labelledby="invite-title">
        <h2 id="invite-title">Invite someone</h2>
        <form action={inviteAction}>
          <input type="hidden" name="siteId" value={siteId} />
          <label>
            E-mail
            <input type="email" name="email" required autoComplete="off" />
          </label>
          <label>
            Role
            <select name="role" defaultValue="editor">
              {INVITABLE.map((role) => (
                <option key={role} value={role}>
                  {ROLE_LABELS[role]}
                </option>
              ))}
            </select>
          </label>
          <button type="submit">Send invitation</button>
        </form>
        {team.invitations.length ? (
          <ul data-testid="invitations">
            {team.invitations.map((invitation) => (
              <li key={invitation.id}>
                {invitation.email} as {invitation.role}, until {new Date(invitation.expiresAt).toUTCString()}
              </li>
            ))}
          </ul>
        ) : null}
      </section>
      <section aria-labelledby="second-title">
        <h2 id="second-title">Changes need a second person</h2>
        <form action={secondPersonAction}>
          <input type="hidden" name="siteId" value={siteId} />
          <label>
            <input type="checkbox" name="requireSecondPerson" defaultChecked={team.requireSecondPerson} /> Whoever asked
            for a change cannot approve, apply or undo it: another owner or approver must.
          </label>
          <button type="submit">Save setting</button>
        </form>
      </section>
    </>
  );
}
