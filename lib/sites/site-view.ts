/**
 * A site as its owner sees it (the dashboard, `GET /sites/:id`, the wizard, the chat page): never credentials,
 * never the pairing code.
 */
import { now } from "@/lib/clock";
import type { Site, SiteStatus } from "@/lib/db/schema";
import { MAX_FAILED_ATTEMPTS } from "./pairing";
import { grantedScopes } from "./permissions";
import type { Scope } from "@/lib/vocabulary";

export type PublicSite = {
  id: string;
  url: string;
  status: SiteStatus;
  name?: string;
  pageBuilder?: string;
  capabilities?: string[];
  /** What the plugin reported the token may do (`/info`'s `token.scopes`, or the scopes sent at redeem). */
  scopes?: Scope[];
  pairedAt?: string;
  lastSeenAt?: string;
  expiresAt?: string;
  attemptsLeft?: number;
  preflight?: Record<string, unknown>;
};

/** What a pending pairing past its expiry is, whether or not the sweeper has marked it yet. */
export function effectiveStatus(site: Site, at = now()): SiteStatus {
  return site.status === "pending" && site.codeExpiresAt <= at ? "expired" : site.status;
}

/** The site as the owner may see it: never credentials, never the code. */
export function publicSite(site: Site): PublicSite {
  const status = effectiveStatus(site);
  const scopes = grantedScopes(site.siteInfo);
  return {
    id: site.id,
    url: site.url,
    status,
    ...(site.name ? { name: site.name } : {}),
    ...(site.pageBuilder ? { pageBuilder: site.pageBuilder } : {}),
    ...(site.capabilities ? { capabilities: site.capabilities } : {}),
    ...(scopes ? { scopes } : {}),
    ...(site.pairedAt ? { pairedAt: site.pairedAt.toISOString() } : {}),
    ...(site.lastSeenAt ? { lastSeenAt: site.lastSeenAt.toISOString() } : {}),
    ...(status === "pending"
      ? { expiresAt: site.codeExpiresAt.toISOString(), attemptsLeft: MAX_FAILED_ATTEMPTS - site.failedAttempts }
      : {}),
    ...(site.preflight ? { preflight: site.preflight } : {}),
  };
}
