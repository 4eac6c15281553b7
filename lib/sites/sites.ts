/**
 * A user's sites after pairing: reading them, the signed confirmation round trip, revoking, and the signed client
 * other parts (agent, sandboxes) use to reach a site.
 */
import { now } from "@/lib/clock";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import {
  activateSite,
  findSiteForUser,
  findSiteOrItsRepairForUser,
  listSitesForUser,
  revokeOtherConnections,
  revokeSite,
  sweepPairings,
  updateSiteInfo,
} from "@/lib/db/queries";
import type { Site } from "@/lib/db/schema";
import { createSiteClient, type SignedSiteClient, type SiteClientOptions } from "./client";
import type { SiteClient } from "./types";
import { decryptSecret, isUnreadableSecret } from "./crypto";
import { effectiveStatus, publicSite } from "./site-view";
import { parsePluginInfo, parsePreflight } from "./plugin-schemas";
import { canonicalJson } from "@/lib/canonical-json";

const notFound = () => new AppError("not_found", "There is no such site in your account.");

/** Another user's site answers exactly like a missing one. */
export async function getOwnedSite({ userId, siteId }: { userId: string; siteId: string }): Promise<Site> {
  const site = await findSiteForUser({ userId, siteId });
  if (!site) throw notFound();
  return site;
}

/**
 * `GET /sites/:id` and Confirm: a re-pairing's id, once the plugin redeemed its code, answers the site it re-paired
 * (the wizard polls the pairing's id and then follows the site's).
 */
export async function getOwnedSiteFollowingRepair({ userId, siteId }: { userId: string; siteId: string }) {
  const site = await findSiteOrItsRepairForUser({ userId, siteId });
  if (!site) throw notFound();
  return site;
}

export async function listSites({ userId }: { userId: string }) {
  return (await listSitesForUser({ userId })).map(publicSite);
}

/**
 * Credentials sealed under another ENCRYPTION_KEY cannot be used again: the site must be paired again, which
 * the owner can do (a 409 that says so), never a 500.
 */
function readSiteCredentials(site: Site, sealed: string): { token: string; secret: string } {
  try {
    return JSON.parse(decryptSecret(sealed, site.id)) as { token: string; secret: string };
  } catch (error) {
    if (!isUnreadableSecret(error)) throw error;
    log.warn("site credentials no longer decrypt: the site must be paired again", { siteId: site.id });
    throw new AppError(
      "pairing_required",
      "Sitewright can no longer use this site's connection (the service's encryption key changed). Pair the site again from the Sites page.",
      { cause: error },
    );
  }
}

/** The signed client for a site that has credentials (redeemed or active). */
export function siteClientFor(site: Site, options?: SiteClientOptions): SignedSiteClient {
  if (!site.credentials || !site.restUrl) {
    throw new AppError("site_not_active", "This site is not connected. Pair it again from the Sites page.");
  }
  const { token, secret } = readSiteCredentials(site, site.credentials);
  return createSiteClient({ baseUrl: site.url, restUrl: site.restUrl, token, secret }, options);
}

/**
 * The user's "Confirm": a signed GET /preflight and /info through the real channel. Only a successful round trip
 * makes the site active; failures say why (`site_unreachable`, `site_rejected` with the plugin's code).
 */
export async function confirmSite({ userId, siteId }: { userId: string; siteId: string }, options?: SiteClientOptions) {
  const site = await getOwnedSiteFollowingRepair({ userId, siteId });
  const status = effectiveStatus(site);
  if (status !== "redeemed" && status !== "active") {
    throw new AppError(
      "not_redeemed",
      "The plugin has not used the pairing code yet. Enter the code in the site's Sitewright settings first.",
      {
        details: { status },
      },
    );
  }
  const client = siteClientFor(site, options);
  const preflight = parsePreflight((await client.get("/sitewright/v1/preflight")).data);
  const info = parsePluginInfo((await client.get("/sitewright/v1/info")).data);
  const at = now();
  const activated = await activateSite({
    id: site.id,
    now: at,
    name: info.name.slice(0, 200),
    pageBuilder: info.pageBuilder.slice(0, 40),
    capabilities: info.token.capabilities,
    siteInfo: info,
    preflight,
  });
  if (!activated)
    throw new AppError("not_redeemed", "This pairing was revoked while it was being confirmed. Start again.");
  await revokeOtherConnections({ userId, url: site.url, keepId: site.id, now: at });
  log.info("site confirmed", { siteId: site.id, userId });
  return { site: publicSite(activated), preflight };
}

/**
 * The site as the plugin describes it now: a signed `GET /info` at the start of each chat turn, so the operations
 * offered follow a theme switch (classic ↔ block), a page builder installed, or the token user's capabilities
 * changed since pairing. Stored when anything changed. When the site does not answer, the stored description
 * stands: the turn goes on, and its own requests will say what is wrong.
 */
export async function refreshSiteInfo(site: Site, client?: SiteClient): Promise<Site> {
  try {
    const reader = client ?? siteClientFor(site, { timeoutMs: 3000 });
    const info = parsePluginInfo((await reader.get("/sitewright/v1/info")).data);
    const next = {
      name: info.name.slice(0, 200),
      pageBuilder: info.pageBuilder.slice(0, 40),
      capabilities: info.token.capabilities,
      siteInfo: info as Record<string, unknown>,
    };
    const same =
      canonicalJson([next.name, next.pageBuilder, next.capabilities, next.siteInfo]) ===
      canonicalJson([site.name, site.pageBuilder, site.capabilities, site.siteInfo]);
    if (same) return site;
    const updated = await updateSiteInfo({ id: site.id, now: now(), ...next });
    if (updated) log.info("site description changed since it was last read", { siteId: site.id });
    return updated ?? site;
  } catch (error) {
    log.warn("could not read the site's description; using the stored one", { siteId: site.id, error });
    return site;
  }
}

/** How old a stored description may be before a page that shows it (the chat page) reads `/info` again. */
export const DESCRIPTION_STALE_MS = 30_000;

/**
 * The site as the plugin describes it, read again when the stored description is older than DESCRIPTION_STALE_MS
 * (permissions saved in WordPress show at once), waiting at most `waitMs`: a slow site keeps the stored one.
 */
export async function refreshWhenStale(site: Site, { waitMs = 1500 }: { waitMs?: number } = {}): Promise<Site> {
  if (effectiveStatus(site) !== "active" || !site.credentials) return site;
  const seen = site.lastSeenAt?.getTime() ?? 0;
  if (now().getTime() - seen < DESCRIPTION_STALE_MS) return site;
  return Promise.race([
    refreshSiteInfo(site),
    new Promise<Site>((resolve) => setTimeout(() => resolve(site), waitMs).unref()),
  ]);
}

/**
 * Tells the plugin to revoke the token, then destroys our copy. The site being gone or refusing does not stop the
 * local revocation: the user asked to disconnect, and our credentials must go either way.
 */
export async function disconnectSite(
  { userId, siteId }: { userId: string; siteId: string },
  options?: SiteClientOptions,
) {
  const site = await getOwnedSite({ userId, siteId });
  if (site.credentials && site.restUrl) {
    try {
      await siteClientFor(site, { timeoutMs: 5000, ...options }).post("/sitewright/v1/revoke");
    } catch (error) {
      log.warn("plugin revoke failed; revoking locally", { siteId, error });
    }
  }
  await revokeSite({ id: site.id, now: now() });
  log.info("site disconnected", { siteId, userId });
}

/** Expired and locked pairings are kept a day (so the wizard can say why), then removed. */
export async function sweepDeadPairings() {
  const at = now();
  return sweepPairings({ now: at, deleteBefore: new Date(at.getTime() - 24 * 60 * 60 * 1000) });
}
