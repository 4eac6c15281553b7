/**
 * A site's own signed call to the service (`POST /sites/plugin/calls`, docs/abilities.md): the plugin's WordPress
 * abilities send the operation a WordPress user asked for, signed with the pairing's credentials. The service
 * finds the site by the URL it names and the SHA-256 of the token it holds, checks the HMAC signature over the
 * same string to sign as its own requests to the site (docs/signing.md) and the timestamp window, and refuses a
 * signature it has seen before.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { now } from "@/lib/clock";
import { listConnectedSitesAtUrl } from "@/lib/db/queries";
import type { Site } from "@/lib/db/schema";
import { AppError } from "@/lib/errors";
import { LIMITS } from "@/lib/vocabulary";
import { decryptSecret } from "./crypto";
import { verify } from "./signing";
import { normalizeSiteUrl } from "./url";

export const PLUGIN_CALLS_ROUTE = "/sites/plugin/calls";

export const pluginCallSchema = z.object({
  siteUrl: z.string().min(1).max(2000),
  operation: z.string().regex(/^[a-z_]{1,64}$/),
  input: z.record(z.string(), z.unknown()),
  actor: z.object({
    wpUserId: z.number().int().nonnegative(),
    login: z.string().max(200),
    name: z.string().max(200),
  }),
});
export type PluginCall = z.infer<typeof pluginCallSchema>;

const refused = () =>
  new AppError(
    "unauthenticated",
    "This call is not signed by a site connected to Sitewright, or its signature expired.",
  );

/** Signatures seen within the window (one process; a replay within it is refused). */
const seen = new Map<string, number>();

function rememberOnce(signature: string, at: number): boolean {
  for (const [key, expires] of seen) if (expires < at) seen.delete(key);
  if (seen.has(signature)) return false;
  seen.set(signature, at + 2 * LIMITS.signatureWindowMs);
  return true;
}

function tokenHashOf(site: Site): { hash: string; secret: string } | undefined {
  try {
    const { token, secret } = JSON.parse(decryptSecret(site.credentials as string, site.id)) as {
      token: string;
      secret: string;
    };
    return { hash: createHash("sha256").update(token).digest("hex"), secret };
  } catch {
    return undefined;
  }
}

const sameHex = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** Parses and authenticates a plugin call; throws `401 unauthenticated` or `400 invalid_input`. */
export async function authenticatePluginCall(
  headers: Headers,
  rawBody: string,
): Promise<{ site: Site; call: PluginCall }> {
  const tokenHash = /^SitewrightSite ([0-9a-f]{64})$/.exec(headers.get("authorization") ?? "")?.[1];
  const timestamp = headers.get("x-sitewright-timestamp") ?? "";
  const signature = headers.get("x-sitewright-signature") ?? "";
  if (!tokenHash || !/^[0-9]{1,16}$/.test(timestamp)) throw refused();
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBody);
  } catch {
    throw new AppError("invalid_input", "The body is not JSON.");
  }
  const result = pluginCallSchema.safeParse(parsed);
  if (!result.success) throw new AppError("invalid_input", "Some fields are missing or not valid.");
  let url: string;
  try {
    url = normalizeSiteUrl(result.data.siteUrl);
  } catch {
    throw refused();
  }
  const at = now().getTime();
  for (const site of await listConnectedSitesAtUrl({ url })) {
    const keys = tokenHashOf(site);
    if (!keys || !sameHex(keys.hash, tokenHash)) continue;
    const request = { timestamp, method: "POST", route: PLUGIN_CALLS_ROUTE, body: rawBody };
    if (!verify(keys.secret, request, signature, { now: at })) throw refused();
    if (!rememberOnce(signature, at)) throw refused();
    return { site, call: result.data };
  }
  throw refused();
}
