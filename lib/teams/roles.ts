/**
 * What each role may do on a site (docs/teams.md has the same table). The owner is the person who paired the
 * site; everyone else is a member the owner invited. Client-safe: the team page imports it.
 */
import type { MemberRole } from "@/lib/db/schema";

export type SiteRole = "owner" | MemberRole;

/** read: see the site, its conversations and change sets; propose: chat, start jobs and sandboxes, attach files;
 * approve: approve, deny, apply, undo, discard; audit: export the audit log; manage: members, settings, disconnect. */
export const RIGHTS = ["read", "propose", "approve", "audit", "manage"] as const;
export type SiteRight = (typeof RIGHTS)[number];

export const ROLE_RIGHTS: Record<SiteRole, readonly SiteRight[]> = {
  owner: ["read", "propose", "approve", "audit", "manage"],
  approver: ["read", "propose", "approve", "audit"],
  editor: ["read", "propose"],
  viewer: ["read"],
};

export const ROLE_LABELS: Record<SiteRole, string> = {
  owner: "Owner",
  approver: "Approver: may approve, apply and undo changes",
  editor: "Editor: chats and proposes; visible changes wait for an approver",
  viewer: "Viewer: reads conversations and change sets",
};

export const can = (role: SiteRole, right: SiteRight) => ROLE_RIGHTS[role].includes(right);
