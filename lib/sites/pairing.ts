/**
 * Pairing a user's account with a WordPress site (API.md, "Sites and pairing"): the user asks for a code, types it
 * into the plugin, the plugin redeems it with fresh credentials, and the user confirms after a signed round trip.
 * Every rule that must hold under concurrency (single use, the attempt counter, the lock) is one SQL statement.
 */
import { createHmac, hkdfSync, randomInt, randomUUID } from "node:crypto";
import { z } from "zod";
import { now } from "@/lib/clock";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { enforceRateLimit } from "@/lib/rate-limit";
import {
  findLatestPairingByUrl,
  insertPairing,
  markPairingExpired,
  recordFailedRedeem,
  redeemPendingPairing,
} from "@/lib/db/queries";
import type { Site, SiteStatus } from "@/lib/db/schema";
import { encryptSecret } from "./crypto";
import { assertPublicHost, SafeFetchError } from "./safe-fetch";
import { normalizeSiteUrl } from "./url";

export const PAIRING_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";
export const PAIRING_CODE_LENGTH = 8;
export const PAIRING_TTL_MS = 5 * 60 * 1000;
export const MAX_FAILED_ATTEMPTS = 5;

/** 8 characters from RFC 8628's alphabet (no vowels, no look-alikes), from the CSPRNG, without modulo bias. */
export function generatePairingCode(): string {
  let code = "";
  for (let i = 0; i < PAIRING_CODE_LENGTH; i++) code += PAIRING_CODE_ALPHABET[randomInt(PAIRING_CODE_ALPHABET.length)];
  return code;
}

/** Accepts any case, spaces, and one hyphen (`bcdf-ghjk`); anything else is simply not a valid code. */
export function normalizePairingCode(input: string): string | undefined {
  const compact = input.replace(/\s+/g, "").toUpperCase();
  const hyphens = compact.split("-").length - 1;
  if (hyphens > 1) return undefined;
  const code = compact.replace("-", "");
  return new RegExp(`^[${PAIRING_CODE_ALPHABET}]{${PAIRING_CODE_LENGTH}}$`).test(code) ? code : undefined;
}

export const formatPairingCode = (code: string) => `${code.slice(0, 4)}-${code.slice(4)}`;

let codeKey: { source: string; key: Buffer } | undefined;
/** An HMAC under a server key, not a bare hash: 20^8 codes fall to an offline search in seconds. */
export function pairingCodeHmac(code: string): string {
  const source = env().ENCRYPTION_KEY;
  if (codeKey?.source !== source) {
    codeKey = { source, key: Buffer.from(hkdfSync("sha256", Buffer.from(source, "hex"), "", "sitewright pairing code v1", 32)) };
  }
  return createHmac("sha256", codeKey.key).update(code).digest("hex");
}

export type PublicSite = {
  id: string;
  url: string;
  status: SiteStatus;
  name?: string;
  pageBuilder?: string;
  capabilities?: string[];
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
  return {
    id: site.id,
    url: site.url,
    status,
    ...(site.name ? { name: site.name } : {}),
    ...(site.pageBuilder ? { pageBuilder: site.pageBuilder } : {}),
    ...(site.capabilities ? { capabilities: site.capabilities } : {}),
    ...(site.pairedAt ? { pairedAt: site.pairedAt.toISOString() } : {}),
    ...(site.lastSeenAt ? { lastSeenAt: site.lastSeenAt.toISOString() } : {}),
    ...(status === "pending" ? { expiresAt: site.codeExpiresAt.toISOString(), attemptsLeft: MAX_FAILED_ATTEMPTS - site.failedAttempts } : {}),
    ...(site.preflight ? { preflight: site.preflight } : {}),
  };
}

export const pairSchema = z.strictObject({ url: z.string().max(2048) });

export async function startPairing({ userId, url }: { userId: string; url: string }) {
  const normalized = normalizeSiteUrl(url);
  try {
    await assertPublicHost(normalized);
  } catch (error) {
    // A name that does not resolve is almost always a typo: the user's mistake to fix, not a 502.
    if (error instanceof SafeFetchError && error.reason === "dns") {
      const message = `We could not find ${new URL(normalized).hostname}. Check the address for typos.`;
      throw new AppError("invalid_input", message, { status: 400, details: { issues: [{ path: ["url"], message }] } });
    }
    throw error;
  }
  const code = generatePairingCode();
  const createdAt = now();
  const site = await insertPairing({
    id: randomUUID(),
    userId,
    url: normalized,
    codeHmac: pairingCodeHmac(code),
    codeExpiresAt: new Date(createdAt.getTime() + PAIRING_TTL_MS),
    createdAt,
  });
  log.info("pairing started", { siteId: site.id, userId });
  return { site: { id: site.id, url: site.url, status: "pending" as const }, code, expiresAt: site.codeExpiresAt.toISOString() };
}

const boundedRecord = z.record(z.string().max(100), z.unknown());

export const redeemSchema = z.strictObject({
  code: z.string().max(32),
  siteUrl: z.string().max(2048),
  restUrl: z.string().max(2048),
  token: z.string().min(32).max(512),
  secret: z.string().min(32).max(512),
  plugin: z.object({ version: z.string().min(1).max(32) }),
  site: boundedRecord.optional(),
});
export type RedeemInput = z.infer<typeof redeemSchema>;

const noPendingPairing = () =>
  new AppError("no_pending_pairing", "There is no pairing waiting for this site. Start again from Sitewright and use the new code.", { status: 404 });
const lockedError = () =>
  new AppError("locked", "Too many wrong codes: this pairing is locked. Start again from Sitewright to get a new code.", { status: 429 });

/** The REST root must be on the site's own origin: the plugin cannot point us at another host. */
function checkRestUrl(siteUrl: string, restUrl: string): string {
  let rest: URL;
  try {
    rest = new URL(restUrl);
  } catch {
    throw new AppError("invalid_input", "The site's REST address is not valid.", {
      status: 400,
      details: { issues: [{ path: ["restUrl"], message: "must be an absolute https URL" }] },
    });
  }
  if (rest.protocol !== "https:" || rest.origin !== new URL(siteUrl).origin || rest.username || rest.password) {
    throw new AppError("invalid_input", "The site's REST address must be on the site's own https address.", {
      status: 400,
      details: { issues: [{ path: ["restUrl"], message: "must be on the same https origin as siteUrl" }] },
    });
  }
  rest.hash = "";
  return rest.toString();
}

const str = (value: unknown, max = 200) => (typeof value === "string" && value.length ? value.slice(0, max) : null);

/** The plugin's call. Rate limits come first, so a code guesser pays before any pairing is looked at. */
export async function redeemPairing(input: RedeemInput & { ip: string }): Promise<{ siteId: string }> {
  const { REDEEM_RATE_LIMIT } = env();
  await enforceRateLimit({ key: `redeem:ip:${input.ip}`, limit: REDEEM_RATE_LIMIT });
  await enforceRateLimit({ key: "redeem:all", limit: REDEEM_RATE_LIMIT * 50 });

  let url: string;
  try {
    url = normalizeSiteUrl(input.siteUrl);
  } catch {
    throw noPendingPairing(); // no pairing is ever made for a URL that does not normalize
  }
  const restUrl = checkRestUrl(url, input.restUrl);
  const code = normalizePairingCode(input.code);
  const codeHmac = code ? pairingCodeHmac(code) : "-";
  const at = now();

  const redeemed = await redeemPendingPairing({
    url,
    codeHmac,
    now: at,
    maxAttempts: MAX_FAILED_ATTEMPTS,
    restUrl,
    pluginVersion: input.plugin.version,
    siteInfo: input.site ?? null,
    name: str(input.site?.name),
    pageBuilder: str(input.site?.pageBuilder, 40),
    encryptCredentials: (siteId) => encryptSecret(JSON.stringify({ token: input.token, secret: input.secret }), siteId),
  });
  if (redeemed) {
    log.info("pairing redeemed", { siteId: redeemed.id });
    return { siteId: redeemed.id };
  }
  return explainFailedRedeem({ url, codeHmac, at });
}

async function explainFailedRedeem({ url, codeHmac, at }: { url: string; codeHmac: string; at: Date }): Promise<never> {
  const latest = await findLatestPairingByUrl({ url });
  if (!latest) throw noPendingPairing();
  if (latest.status === "locked") throw lockedError();
  if (latest.status !== "pending") {
    if (latest.codeHmac === codeHmac && latest.status !== "expired") {
      throw new AppError("code_used", "This code was already used. Start again from Sitewright to get a new one.", { status: 409 });
    }
    if (latest.status === "expired" && latest.codeExpiresAt <= at) throw codeExpired();
    throw noPendingPairing();
  }
  if (latest.codeExpiresAt <= at) {
    await markPairingExpired({ id: latest.id });
    throw codeExpired();
  }
  const counted = await recordFailedRedeem({ id: latest.id, maxAttempts: MAX_FAILED_ATTEMPTS });
  if (!counted) return explainFailedRedeem({ url, codeHmac, at }); // changed under us: answer from its new state
  if (counted.status === "locked") {
    log.warn("pairing locked after failed attempts", { siteId: latest.id });
    throw lockedError();
  }
  const attemptsLeft = MAX_FAILED_ATTEMPTS - counted.failedAttempts;
  throw new AppError("invalid_code", `That code is not right. ${attemptsLeft} ${attemptsLeft === 1 ? "attempt" : "attempts"} left.`, {
    status: 401,
    details: { attemptsLeft },
  });
}

const codeExpired = () =>
  new AppError("code_expired", "This code has expired (codes last 5 minutes). Start again from Sitewright to get a new one.", { status: 410 });
