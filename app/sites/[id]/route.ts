import { json, noContent, route } from "@/lib/http/route";
import { publicSite } from "@/lib/sites/site-view";
import { disconnectSite, getOwnedSiteFollowingRepair } from "@/lib/sites/sites";
import { siteAccess } from "@/lib/teams/access";
import { changeSiteSettings } from "@/lib/teams/site-settings";
import { siteSettingsSchema } from "./schema";

export const GET = route({ auth: "session" }, async ({ params, session }) => {
  const access = await siteAccess({ userId: session.userId, siteId: params.id! }, "read").catch(() => undefined);
  // The owner's link follows a re-pairing to its site; a member sees the site as shared with them.
  if (!access || access.role === "owner") {
    const site = await getOwnedSiteFollowingRepair({ userId: session.userId, siteId: params.id! });
    return json(200, { site: { ...publicSite(site), role: "owner", requireSecondPerson: site.requireSecondPerson } });
  }
  const { site, role } = access;
  return json(200, { site: { ...publicSite(site), role, requireSecondPerson: site.requireSecondPerson } });
});

/** The owner's team settings: `requireSecondPerson`, `auditRetentionDays` (docs/teams.md). */
export const PATCH = route({ auth: "session", body: siteSettingsSchema }, async ({ body, params, session }) => {
  const site = await changeSiteSettings(session.user, params.id!, body);
  return json(200, {
    site: {
      ...publicSite(site),
      role: "owner",
      requireSecondPerson: site.requireSecondPerson,
      auditRetentionDays: site.auditRetentionDays,
    },
  });
});

export const DELETE = route({ auth: "session" }, async ({ params, session }) => {
  await siteAccess({ userId: session.userId, siteId: params.id! }, "manage");
  await disconnectSite({ userId: session.userId, siteId: params.id! });
  return noContent();
});
