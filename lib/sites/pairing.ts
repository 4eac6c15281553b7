/**
 * Pairing a user's account with a WordPress site (docs/api.md, "Sites and pairing"): the user asks for a code, types it
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
  findPairingByUrlAndCode,
  insertPairing,
  markPairingExpired,
  recordFailedRedeem,
  redeemPendingPairing,
} from "@/lib/db/queries";
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
    codeKey = {
      source,
      key: Buffer.from(hkdfSync("sha256", Buffer.from(source, "hex"), "", "sitewright pairing code v1", 32)),
    };
  }
  return createHmac("sha256", codeKey.key).update(code).digest("hex");
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
      throw new AppError("invalid_input", message, { details: { issues: [{ path: ["url"], message }] } });
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
  return {
    site: { id: site.id, url: site.url, status: "pending" as const },
    code,
    expiresAt: site.codeExpiresAt.toISOString(),
  };
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
  new AppError(
    "no_pending_pairing",
    "There is no pairing waiting for this site. Start again from Sitewright and use the new code.",
  );
const lockedError = () =>
  new AppError(
    "locked",
    "Too many wrong codes: this pairing is locked. Start again from Sitewright to get a new code.",
  );

/** The REST root must be on the site's own origin: the plugin cannot point us at another host. */
function checkRestUrl(siteUrl: string, restUrl: string): string {
  let rest: URL;
  try {
    rest = new URL(restUrl);
  } catch {
    throw new AppError("invalid_input", "The site's REST address is not valid.", {
      details: { issues: [{ path: ["restUrl"], message: "must be an absolute https URL" }] },
    });
  }
  if (rest.protocol !== "https:" || rest.origin !== new URL(siteUrl).origin || rest.username || rest.password) {
    throw new AppError("invalid_input", "The site's REST address must be on the site's own https address.", {
      details: { issues: [{ path: ["restUrl"], message: "must be on the same https origin as siteUrl" }] },
    });
  }
  rest.hash = "";
  return rest.toString();
}

const str = (value: unknown, max = 200) => (typeof value === "string" && value.length ? value.slice(0, max) : null);

/**
 * The plugin's call. The client's rate limit comes first, so a code guesser pays before any pairing is looked at;
 * each pending pairing bounds guesses at itself (MAX_FAILED_ATTEMPTS, counted in SQL). No bucket is shared by
 * every client: 52 addresses used to exhaust one and refuse every customer's right code (docs/api.md).
 */
export async function redeemPairing(input: RedeemInput & { ip: string }): Promise<{ siteId: string }> {
  await enforceRateLimit({ key: `redeem:ip:${input.ip}`, limit: env().REDEEM_RATE_LIMIT });

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

/**
 * Why a redeem did not succeed. Pairings of one URL by different users coexist, so the code decides which
 * pairing is meant: a code of a used, locked or lapsed pairing gets that pairing's answer; any other code is a
 * wrong guess at every pending code of the URL and counts against each of them (recordFailedRedeem), so each
 * pairing keeps its own five-guess bound however many are pending. A wrong code answers with the fewest
 * attempts any pending pairing has left, and `locked` when it locked the last of them.
 */
async function explainFailedRedeem(
  { url, codeHmac, at }: { url: string; codeHmac: string; at: Date },
  depth = 0,
): Promise<never> {
  const meant = await findPairingByUrlAndCode({ url, codeHmac });
  if (meant) {
    if (meant.status === "locked") throw lockedError();
    if (meant.status === "redeemed" || meant.status === "active" || meant.status === "revoked") throw codeUsed();
    if (meant.codeExpiresAt <= at) {
      if (meant.status === "pending") await markPairingExpired({ id: meant.id });
      throw codeExpired();
    }
    // Still pending and unexpired: it changed under us (redeemed or locked a moment ago); answer from its new state.
    if (meant.status === "pending" && depth < 3) return explainFailedRedeem({ url, codeHmac, at }, depth + 1);
    // Otherwise superseded by its owner's newer pairing: the old code is now a wrong code.
  }

  const counted = await recordFailedRedeem({ url, now: at, maxAttempts: MAX_FAILED_ATTEMPTS });
  const stillPending = counted.filter((row) => row.status === "pending");
  if (stillPending.length > 0) {
    const attemptsLeft = Math.min(...stillPending.map((row) => MAX_FAILED_ATTEMPTS - row.failedAttempts));
    throw new AppError(
      "invalid_code",
      `That code is not right. ${attemptsLeft} ${attemptsLeft === 1 ? "attempt" : "attempts"} left.`,
      { details: { attemptsLeft } },
    );
  }
  if (counted.length > 0) {
    for (const row of counted) log.warn("pairing locked after failed attempts", { siteId: row.id });
    throw lockedError();
  }

  // No pending pairing to count against: answer from the URL's most recent pairing.
  const latest = await findLatestPairingByUrl({ url });
  if (!latest) throw noPendingPairing();
  if (latest.status === "locked") throw lockedError();
  if (latest.codeExpiresAt <= at && (latest.status === "pending" || latest.status === "expired")) {
    if (latest.status === "pending") await markPairingExpired({ id: latest.id });
    throw codeExpired();
  }
  throw noPendingPairing();
}

const codeUsed = () =>
  new AppError("code_used", "This code was already used. Start again from Sitewright to get a new one.");

const codeExpired = () =>
  new AppError(
    "code_expired",
    "This code has expired (codes last 5 minutes). Start again from Sitewright to get a new one.",
  );
