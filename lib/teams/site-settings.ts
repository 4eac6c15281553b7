/**
 * The owner's team settings for a site (`PATCH /sites/:id`), the audit export (owner, approver) and the record of
 * a member opening the site's pages (once per login session). docs/teams.md.
 */
import { exportAuditLog, recordAudit, recordAuditSafely } from "@/lib/audit/chain";
import { hasAuditEntry, updateSiteSettings } from "@/lib/db/queries";
import { actorOf, type Person, siteAccess } from "./access";

export type SiteSettingsPatch = { requireSecondPerson?: boolean; auditRetentionDays?: number | null };

export async function changeSiteSettings(person: Person, siteId: string, patch: SiteSettingsPatch) {
  const { site } = await siteAccess({ userId: person.id, siteId }, "manage");
  const updated = (await updateSiteSettings({ id: site.id, ...patch })) ?? site;
  await recordAudit({ siteId: site.id, actor: actorOf(person), action: "setting", details: { ...patch } });
  return updated;
}

export async function exportSiteAudit(person: Person, siteId: string): Promise<string> {
  const { site } = await siteAccess({ userId: person.id, siteId }, "audit");
  return exportAuditLog({ siteId: site.id, actor: actorOf(person), retentionDays: site.auditRetentionDays });
}

/** A member opened the site's pages in this login session: recorded once per session (`session`: a prefix of its hash). */
export async function recordSiteVisit(person: Person, siteId: string, sessionIdHash: string): Promise<void> {
  const session = sessionIdHash.slice(0, 16);
  if (await hasAuditEntry({ siteId, action: "sign_in", key: "session", value: session })) return;
  await recordAuditSafely({ siteId, actor: actorOf(person), action: "sign_in", details: { session } });
}
