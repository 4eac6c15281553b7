/**
 * Who may do what on a site (docs/teams.md): the one check every site route and page goes through. A site the
 * user is neither owner nor member of answers `404 not_found`, exactly like a missing one; a role without the
 * right answers `403 forbidden`.
 */
import { findSiteOfRecord, findSiteWithRole } from "@/lib/db/queries";
import type { Actor, ActorDoor, Site } from "@/lib/db/schema";
import { AppError } from "@/lib/errors";
import { can, type SiteRight, type SiteRole } from "./roles";

export type SiteAccess = { site: Site; role: SiteRole };
export type Person = { id: string; email: string; name: string | null };

const notFound = () => new AppError("not_found", "There is no such site in your account.");

/** What a role lacking each right is told (the refusal names who can, so the person knows whom to ask). */
const REFUSALS: Record<SiteRight, string> = {
  read: "Your role on this site does not allow that. Ask the site's owner.",
  propose: "Your role on this site lets you read, not ask for changes. Ask the site's owner for the editor role.",
  approve:
    "Your role on this site lets you ask for changes, not approve, apply or undo them: the site's owner or an approver does that.",
  audit: "Only the site's owner or an approver can export the audit log.",
  manage: "Only the site's owner can do that.",
};

export const forbidden = (right: SiteRight) =>
  new AppError("forbidden", REFUSALS[right], { details: { needs: right } });

/** The site and the user's role, when the role has `right`. */
export async function siteAccess({ userId, siteId }: { userId: string; siteId: string }, right: SiteRight) {
  const found = await findSiteWithRole({ userId, siteId });
  if (!found) throw notFound();
  if (!can(found.role, right)) throw forbidden(right);
  return found satisfies SiteAccess;
}

/**
 * The site a workflow's request addresses (`userId`: the account its change sets are stored under). Workflows below
 * the routes use it; the route checked the acting person's role first (lib/teams/change-set-acts.ts).
 */
export async function getSiteOfRecord(input: { userId: string; siteId: string }): Promise<Site> {
  const site = await findSiteOfRecord(input);
  if (!site) throw notFound();
  return site;
}

/** The person as the audit names them: their name, else their address. */
export function actorOf(person: Person, door: ActorDoor = "chat", client?: string): Actor {
  return { userId: person.id, name: person.name?.trim() || person.email, door, ...(client ? { client } : {}) };
}
