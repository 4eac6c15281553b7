/**
 * The owner's team for a site (docs/teams.md): invitations mailed with a single-use link (7 days, only its hash
 * kept), accepted by the person the address belongs to once signed up or logged in; roles changed or members
 * removed at once, which also ends what they held for the site (sandboxes and their previews, MCP access).
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { recordAudit } from "@/lib/audit/chain";
import { now } from "@/lib/clock";
import {
  consumeInvitation,
  deleteMember,
  findInvitation,
  findSiteById,
  insertInvitation,
  listMemberSandboxIds,
  listOpenInvitations,
  listSharedSites,
  listSiteMembers,
  removeSiteFromGrants,
  updateMemberRole,
  upsertMember,
} from "@/lib/db/queries";
import type { MemberRole } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { inBackground, sendMail } from "@/lib/mail/mailer";
import { siteInvitationMail } from "@/lib/mail/messages";
import { getSandboxManager } from "@/lib/sandbox";
import { actorOf, type Person, siteAccess } from "./access";

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const TOKEN_FORMAT = /^[A-Za-z0-9_-]{43}$/;
const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

const memberNotFound = () => new AppError("not_found", "There is no such member of this site.");
const invalidInvitation = () =>
  new AppError("invalid_token", "This invitation is not valid, or it was already used. Ask the owner for a new one.");

/** The sites others shared with the person, and the role they hold on each (the dashboard's "Shared with you"). */
export async function listSitesSharedWith({ userId }: { userId: string }) {
  const rows = await listSharedSites({ userId });
  return rows.map(({ site, role }) => ({ id: site.id, url: site.url, name: site.name, role }));
}

export async function listTeam(person: Person, siteId: string) {
  const { site, role } = await siteAccess({ userId: person.id, siteId }, "read");
  const members = await listSiteMembers({ siteId: site.id });
  const invitations = role === "owner" ? await listOpenInvitations({ siteId: site.id, now: now() }) : [];
  return {
    role,
    requireSecondPerson: site.requireSecondPerson,
    auditRetentionDays: site.auditRetentionDays,
    members: members.map((m) => ({ ...m, createdAt: m.createdAt.toISOString() })),
    invitations: invitations.map((i) => ({ ...i, expiresAt: i.expiresAt.toISOString() })),
  };
}

export async function inviteMember(person: Person, input: { siteId: string; email: string; role: MemberRole }) {
  const { site } = await siteAccess({ userId: person.id, siteId: input.siteId }, "manage");
  const email = input.email.trim().toLowerCase();
  if (email === person.email.toLowerCase())
    throw new AppError("invalid_input", "You own this site already: invite someone else.", {
      details: { issues: [{ path: ["email"], message: "is your own address" }] },
    });
  const token = randomBytes(32).toString("base64url");
  const at = now();
  const invitation = {
    id: randomUUID(),
    tokenHash: hashToken(token),
    siteId: site.id,
    email,
    role: input.role,
    invitedBy: person.id,
    createdAt: at,
    expiresAt: new Date(at.getTime() + INVITATION_TTL_MS),
  };
  await insertInvitation(invitation);
  const link = `${env().APP_URL}/invitations?token=${token}`;
  const mail = siteInvitationMail({
    to: email,
    link,
    inviter: actorOf(person).name,
    site: site.name || site.url,
    role: input.role,
  });
  inBackground("site invitation mail", () => sendMail(mail));
  await recordAudit({
    siteId: site.id,
    actor: actorOf(person),
    action: "member_invite",
    subject: { invitationId: invitation.id },
    details: { email, role: input.role },
  });
  return { id: invitation.id, email, role: input.role, expiresAt: invitation.expiresAt.toISOString() };
}

/** What the invitation page shows before it is accepted (nothing for an unknown, used or expired link). */
export async function describeInvitation(token: string) {
  if (!TOKEN_FORMAT.test(token)) return undefined;
  const invitation = await findInvitation({ tokenHash: hashToken(token) });
  if (!invitation || invitation.usedAt || invitation.expiresAt <= now()) return undefined;
  const site = await findSiteById({ siteId: invitation.siteId });
  if (!site) return undefined;
  return { email: invitation.email, role: invitation.role, site: { name: site.name, url: site.url } };
}

/**
 * The invited person accepts: the link is used up in one statement, and must have been sent to this account's
 * address (a forwarded link does not let someone else in).
 */
export async function acceptInvitation(person: Person, token: string) {
  if (!TOKEN_FORMAT.test(token)) throw invalidInvitation();
  const tokenHash = hashToken(token);
  const found = await findInvitation({ tokenHash });
  if (!found || found.usedAt) throw invalidInvitation();
  if (found.email !== person.email.toLowerCase())
    throw new AppError(
      "forbidden",
      `This invitation was sent to another address. Log in as ${found.email} to accept it.`,
    );
  if (found.expiresAt <= now())
    throw new AppError("token_expired", "This invitation has expired. Ask the site's owner for a new one.");
  const invitation = await consumeInvitation({ tokenHash, userId: person.id, now: now() });
  if (!invitation) throw invalidInvitation();
  const member = await upsertMember({
    id: randomUUID(),
    siteId: invitation.siteId,
    userId: person.id,
    role: invitation.role,
    invitedBy: invitation.invitedBy,
    now: now(),
  });
  await recordAudit({
    siteId: invitation.siteId,
    actor: actorOf(person),
    action: "member_join",
    subject: { memberId: member.id },
    details: { role: member.role },
  });
  return { siteId: invitation.siteId, role: member.role };
}

/** What a member held for the site ends with their old role: their sandboxes (and previews) and MCP access. */
async function endMemberAccess(siteId: string, userId: string) {
  const grants = await removeSiteFromGrants({ siteId, userId, now: now() });
  const sandboxIds = await listMemberSandboxIds({ siteId, userId });
  // Rows exist only where sandboxes ran: ask the manager that holds them, whatever the environment says now.
  if (sandboxIds.length) {
    const manager = getSandboxManager();
    for (const id of sandboxIds) {
      await manager
        .deleteSandbox({ userId, id })
        .catch((error) => log.warn("could not end a member's sandbox", { id, error }));
    }
  }
  return { grants, sandboxes: sandboxIds.length };
}

export async function changeMemberRole(person: Person, input: { siteId: string; memberId: string; role: MemberRole }) {
  const { site } = await siteAccess({ userId: person.id, siteId: input.siteId }, "manage");
  const member = await updateMemberRole({ siteId: site.id, memberId: input.memberId, role: input.role, now: now() });
  if (!member) throw memberNotFound();
  const ended = await endMemberAccess(site.id, member.userId);
  await recordAudit({
    siteId: site.id,
    actor: actorOf(person),
    action: "member_role",
    subject: { memberId: member.id, userId: member.userId },
    details: { role: member.role, ...ended },
  });
  return { id: member.id, userId: member.userId, role: member.role };
}

export async function removeMember(person: Person, input: { siteId: string; memberId: string }) {
  const { site } = await siteAccess({ userId: person.id, siteId: input.siteId }, "manage");
  const member = await deleteMember({ siteId: site.id, memberId: input.memberId });
  if (!member) throw memberNotFound();
  const ended = await endMemberAccess(site.id, member.userId);
  await recordAudit({
    siteId: site.id,
    actor: actorOf(person),
    action: "member_remove",
    subject: { memberId: member.id, userId: member.userId },
    details: ended,
  });
}
