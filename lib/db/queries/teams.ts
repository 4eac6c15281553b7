/** Site members and invitations (docs/teams.md). The owner is `sites.user_id`; members have rows here. */
import { and, asc, eq, gt, inArray, isNull, ne, sql } from "drizzle-orm";
import { getDb } from "../index";
import {
  type Actor,
  changeAudit,
  changeItems,
  changeSets,
  type MemberRole,
  oauthGrants,
  sandboxes,
  type Site,
  siteInvitations,
  siteMembers,
  sites,
  users,
} from "../schema";

/** The site and the user's role on it: `owner`, their member role, or undefined (not theirs at all). */
export async function findSiteWithRole({
  userId,
  siteId,
}: {
  userId: string;
  siteId: string;
}): Promise<{ site: Site; role: "owner" | MemberRole } | undefined> {
  const db = await getDb();
  const [row] = await db
    .select({ site: sites, memberRole: siteMembers.role })
    .from(sites)
    .leftJoin(siteMembers, and(eq(siteMembers.siteId, sites.id), eq(siteMembers.userId, userId)))
    .where(and(eq(sites.id, siteId), sql`(${sites.userId} = ${userId} or ${siteMembers.userId} is not null)`))
    .limit(1);
  if (!row) return undefined;
  return { site: row.site, role: row.site.userId === userId ? "owner" : (row.memberRole as MemberRole) };
}

/** Sites others shared with the user (not revoked), with the role they hold. */
export async function listSharedSites({ userId }: { userId: string }) {
  const db = await getDb();
  return db
    .select({ site: sites, role: siteMembers.role })
    .from(siteMembers)
    .innerJoin(sites, eq(sites.id, siteMembers.siteId))
    .where(and(eq(siteMembers.userId, userId), ne(sites.status, "revoked")))
    .orderBy(asc(sites.createdAt));
}

export async function listSiteMembers({ siteId }: { siteId: string }) {
  const db = await getDb();
  return db
    .select({
      id: siteMembers.id,
      userId: siteMembers.userId,
      role: siteMembers.role,
      createdAt: siteMembers.createdAt,
      email: users.email,
      name: users.name,
    })
    .from(siteMembers)
    .innerJoin(users, eq(users.id, siteMembers.userId))
    .where(eq(siteMembers.siteId, siteId))
    .orderBy(asc(siteMembers.createdAt));
}

export async function listOpenInvitations({ siteId, now }: { siteId: string; now: Date }) {
  const db = await getDb();
  return db
    .select({
      id: siteInvitations.id,
      email: siteInvitations.email,
      role: siteInvitations.role,
      expiresAt: siteInvitations.expiresAt,
    })
    .from(siteInvitations)
    .where(and(eq(siteInvitations.siteId, siteId), isNull(siteInvitations.usedAt), gt(siteInvitations.expiresAt, now)))
    .orderBy(asc(siteInvitations.createdAt));
}

export async function insertInvitation(row: typeof siteInvitations.$inferInsert) {
  const db = await getDb();
  await db.insert(siteInvitations).values(row);
}

/** Uses an invitation up in one statement (two tabs accepting cannot both succeed); its row when it was unused. */
export async function consumeInvitation({ tokenHash, userId, now }: { tokenHash: string; userId: string; now: Date }) {
  const db = await getDb();
  const [row] = await db
    .update(siteInvitations)
    .set({ usedAt: now, usedBy: userId })
    .where(and(eq(siteInvitations.tokenHash, tokenHash), isNull(siteInvitations.usedAt)))
    .returning();
  return row;
}

export async function findInvitation({ tokenHash }: { tokenHash: string }) {
  const db = await getDb();
  const [row] = await db.select().from(siteInvitations).where(eq(siteInvitations.tokenHash, tokenHash)).limit(1);
  return row;
}

/** Adds the member, or gives an existing member the invitation's role. */
export async function upsertMember(row: {
  id: string;
  siteId: string;
  userId: string;
  role: MemberRole;
  invitedBy: string;
  now: Date;
}) {
  const db = await getDb();
  const [member] = await db
    .insert(siteMembers)
    .values({ ...row, createdAt: row.now, updatedAt: row.now })
    .onConflictDoUpdate({
      target: [siteMembers.siteId, siteMembers.userId],
      set: { role: row.role, updatedAt: row.now },
    })
    .returning();
  return member!;
}

export async function updateMemberRole(input: { siteId: string; memberId: string; role: MemberRole; now: Date }) {
  const db = await getDb();
  const [row] = await db
    .update(siteMembers)
    .set({ role: input.role, updatedAt: input.now })
    .where(and(eq(siteMembers.id, input.memberId), eq(siteMembers.siteId, input.siteId)))
    .returning();
  return row;
}

export async function deleteMember(input: { siteId: string; memberId: string }) {
  const db = await getDb();
  const [row] = await db
    .delete(siteMembers)
    .where(and(eq(siteMembers.id, input.memberId), eq(siteMembers.siteId, input.siteId)))
    .returning();
  return row;
}

export async function updateSiteSettings(input: {
  id: string;
  requireSecondPerson?: boolean;
  auditRetentionDays?: number | null;
}): Promise<Site | undefined> {
  const db = await getDb();
  const set: Partial<Site> = {};
  if (input.requireSecondPerson !== undefined) set.requireSecondPerson = input.requireSecondPerson;
  if (input.auditRetentionDays !== undefined) set.auditRetentionDays = input.auditRetentionDays;
  if (Object.keys(set).length === 0) return (await db.select().from(sites).where(eq(sites.id, input.id)))[0];
  const [row] = await db.update(sites).set(set).where(eq(sites.id, input.id)).returning();
  return row;
}

/** The sandboxes a member holds for this site (their previews go with them). */
export async function listMemberSandboxIds({ siteId, userId }: { siteId: string; userId: string }) {
  const db = await getDb();
  const rows = await db
    .select({ id: sandboxes.id })
    .from(sandboxes)
    .where(and(eq(sandboxes.siteId, siteId), eq(sandboxes.userId, userId)));
  return rows.map((r) => r.id);
}

/**
 * Takes the site out of the member's MCP grants (one statement each way): a grant left with no site is revoked, so
 * its tokens stop working at once.
 */
export async function removeSiteFromGrants({ siteId, userId, now }: { siteId: string; userId: string; now: Date }) {
  const db = await getDb();
  const touched = await db
    .update(oauthGrants)
    .set({
      siteIds: sql`coalesce((select jsonb_agg(s) from jsonb_array_elements(${oauthGrants.siteIds}) s where s <> to_jsonb(${siteId}::text)), '[]'::jsonb)`,
    })
    .where(and(eq(oauthGrants.userId, userId), isNull(oauthGrants.revokedAt), sql`${oauthGrants.siteIds} ? ${siteId}`))
    .returning({ id: oauthGrants.id });
  await db
    .update(oauthGrants)
    .set({ revokedAt: now })
    .where(
      and(
        eq(oauthGrants.userId, userId),
        isNull(oauthGrants.revokedAt),
        sql`jsonb_array_length(${oauthGrants.siteIds}) = 0`,
      ),
    );
  return touched.length;
}

/**
 * A site's change set as a member reaches it: the account it is stored under (`userId`, whoever's chat made it) and
 * everyone who asked for it or any of its items (the second-person rule refuses each of them).
 */
export async function findChangeSetAskers({ id, siteId }: { id: string; siteId: string }) {
  const db = await getDb();
  const [set] = await db
    .select({ userId: changeSets.userId, requestedBy: changeSets.requestedBy, target: changeSets.target })
    .from(changeSets)
    .where(and(eq(changeSets.id, id), eq(changeSets.siteId, siteId)))
    .limit(1);
  if (!set) return undefined;
  const items = await db
    .selectDistinct({ userId: sql<string | null>`${changeItems.actor} ->> 'userId'` })
    .from(changeItems)
    .where(eq(changeItems.changeSetId, id));
  const askers = new Set<string>([set.requestedBy?.userId ?? set.userId]);
  for (const item of items) if (item.userId) askers.add(item.userId);
  return { userId: set.userId, requestedBy: set.requestedBy, askers: [...askers] };
}

/** Who clicked what on these change sets, oldest first (rows written before teams have no actor and are left out). */
export async function listChangeActivity({ changeSetIds }: { changeSetIds: string[] }) {
  if (changeSetIds.length === 0) return [];
  const db = await getDb();
  return db
    .select({
      changeSetId: changeAudit.changeSetId,
      action: changeAudit.action,
      actor: changeAudit.actor,
      at: changeAudit.at,
    })
    .from(changeAudit)
    .where(and(inArray(changeAudit.changeSetId, changeSetIds), sql`${changeAudit.actor} is not null`))
    .orderBy(asc(changeAudit.at)) as Promise<Array<{ changeSetId: string; action: string; actor: Actor; at: Date }>>;
}

/**
 * The site, when `userId` has a place on it: its owner, a member, or someone whose change sets it holds (a member
 * since removed). The workflows below the routes address sets under the account that made them; the route checked
 * the acting person's role.
 */
export async function findSiteOfRecord({
  userId,
  siteId,
}: {
  userId: string;
  siteId: string;
}): Promise<Site | undefined> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(sites)
    .where(
      and(
        eq(sites.id, siteId),
        sql`(${sites.userId} = ${userId}
          or exists (select 1 from site_members m where m.site_id = ${sites.id} and m.user_id = ${userId})
          or exists (select 1 from change_sets c where c.site_id = ${sites.id} and c.user_id = ${userId}))`,
      ),
    )
    .limit(1);
  return row;
}
