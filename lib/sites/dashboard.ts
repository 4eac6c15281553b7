/**
 * The dashboard's view of a user's sites: one entry per site address, whatever number of pairings it took.
 * Connected and unfinished sites come first; abandoned attempts (expired, locked, superseded codes) are kept
 * apart so they never bury the site in use; disconnected sites stay listed while they have conversations, which
 * follow the address (see docs/product.md).
 */
import { now } from "@/lib/clock";
import { lastConversationActivityByUrl, listAllSiteRowsForUser } from "@/lib/db/queries";
import type { Site, SiteStatus } from "@/lib/db/schema";
import { effectiveStatus } from "./site-view";

export type DashboardSite = {
  id: string;
  url: string;
  name: string | null;
  status: SiteStatus;
  /** The status in words a site owner reads. */
  statusText: string;
  /** The newest of: the site last answering us, the last chat about it. */
  lastActivityAt: string | null;
};

export type Dashboard = {
  sites: DashboardSite[];
  disconnected: DashboardSite[];
  abandoned: DashboardSite[];
};

export const STATUS_WORDS: Record<SiteStatus, string> = {
  pending: "Waiting for the pairing code",
  redeemed: "Plugin answered: confirm to finish",
  active: "Connected",
  expired: "Code expired",
  locked: "Locked after five wrong codes",
  revoked: "Disconnected",
};

const LIVE: ReadonlySet<SiteStatus> = new Set(["pending", "redeemed", "active"]);

function latest(...dates: Array<Date | null | undefined>): string | null {
  const times = dates.flatMap((d) => (d ? [d.getTime()] : []));
  return times.length ? new Date(Math.max(...times)).toISOString() : null;
}

export async function loadDashboard({ userId }: { userId: string }): Promise<Dashboard> {
  const at = now();
  const [rows, activity] = await Promise.all([
    listAllSiteRowsForUser({ userId }),
    lastConversationActivityByUrl({ userId }),
  ]);
  const byUrl = new Map<string, Site[]>();
  for (const row of rows) byUrl.set(row.url, [...(byUrl.get(row.url) ?? []), row]);

  const view = (site: Site, status = effectiveStatus(site, at)): DashboardSite => ({
    id: site.id,
    url: site.url,
    name: site.name,
    status,
    statusText: STATUS_WORDS[status],
    lastActivityAt: latest(site.lastSeenAt, activity.get(site.url)),
  });

  const dashboard: Dashboard = { sites: [], disconnected: [], abandoned: [] };
  for (const [url, pairings] of byUrl) {
    // Newest first (the query's order): the newest live pairing is the site; older live ones are superseded. A
    // pending re-pairing does not hide the site it re-pairs: that site keeps working until the code is redeemed.
    const live = pairings.filter((row) => LIVE.has(effectiveStatus(row, at)));
    const current = live.find((row) => !live.some((site) => site.id === row.repairsSiteId)) ?? live[0];
    if (current) dashboard.sites.push(view(current));
    else if (activity.has(url)) {
      const revoked = pairings.find((row) => row.status === "revoked");
      if (revoked) dashboard.disconnected.push(view(revoked));
    }
    for (const row of pairings) {
      if (row === current) continue;
      const status = effectiveStatus(row, at);
      if (status === "expired" || status === "locked") dashboard.abandoned.push(view(row, status));
    }
  }
  return dashboard;
}
