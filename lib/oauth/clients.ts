/**
 * Dynamic client registration (RFC 7591) and the redirect URI rules: https, or loopback http for native clients
 * (RFC 8252: any port on localhost, 127.0.0.1 or [::1]); no fragments, no userinfo; matched exactly, except a
 * loopback URI's port.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { now } from "@/lib/clock";
import { findOAuthClient, insertOAuthClient } from "@/lib/db/queries";
import type { OAuthClient } from "@/lib/db/schema";
import { hashToken, newToken, OAUTH_LIMITS } from "./config";
import { OAuthError } from "./errors";

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** Why a redirect URI cannot be registered, or null. */
export function redirectUriProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${value} is not an absolute URL.`;
  }
  if (value.length > 2000) return "A redirect URI may be at most 2000 characters.";
  if (url.hash || value.includes("#")) return "A redirect URI may not have a fragment.";
  if (url.username || url.password) return "A redirect URI may not carry a user name or password.";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && LOOPBACK.has(url.hostname)) return null;
  return "Redirect URIs must be https, or http on localhost, 127.0.0.1 or [::1] for native clients.";
}

/** Whether a redirect URI given at authorization matches one the client registered. */
export function matchesRegisteredUri(client: Pick<OAuthClient, "redirectUris">, given: string): boolean {
  if (client.redirectUris.includes(given)) return true;
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" || !LOOPBACK.has(url.hostname)) return false;
  const withoutPort = (u: URL) => `${u.protocol}//${u.hostname}${u.pathname}${u.search}`;
  return client.redirectUris.some((registered) => {
    try {
      return withoutPort(new URL(registered)) === withoutPort(url);
    } catch {
      return false;
    }
  });
}

export const registrationSchema = z.looseObject({
  redirect_uris: z.array(z.string()).min(1).max(OAUTH_LIMITS.redirectUris),
  client_name: z.string().trim().min(1).max(100).optional(),
  token_endpoint_auth_method: z.enum(["none", "client_secret_post", "client_secret_basic"]).optional(),
  grant_types: z.array(z.string()).optional(),
  response_types: z.array(z.string()).optional(),
});

export async function registerClient(body: unknown) {
  const parsed = registrationSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new OAuthError(
      "invalid_client_metadata",
      `${issue?.path.join(".") || "body"}: ${issue?.message ?? "not valid"}`,
    );
  }
  const metadata = parsed.data;
  for (const uri of metadata.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError("invalid_redirect_uri", problem);
  }
  const grantTypes = metadata.grant_types ?? ["authorization_code", "refresh_token"];
  if (grantTypes.some((type) => type !== "authorization_code" && type !== "refresh_token")) {
    throw new OAuthError(
      "invalid_client_metadata",
      "Only the authorization_code and refresh_token grants are offered.",
    );
  }
  if (metadata.response_types?.some((type) => type !== "code")) {
    throw new OAuthError("invalid_client_metadata", "Only the code response type is offered.");
  }
  const authMethod = metadata.token_endpoint_auth_method ?? "client_secret_basic";
  const secret = authMethod === "none" ? null : newToken("swm_cs_");
  const at = now();
  const client = await insertOAuthClient({
    id: `swm_client_${randomBytes(16).toString("base64url")}`,
    name: metadata.client_name ?? "Unnamed client",
    redirectUris: metadata.redirect_uris,
    authMethod,
    secretHash: secret ? hashToken(secret) : null,
    now: at,
  });
  return {
    client_id: client.id,
    client_id_issued_at: Math.floor(at.getTime() / 1000),
    ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
    client_name: client.name,
    redirect_uris: client.redirectUris,
    token_endpoint_auth_method: authMethod,
    grant_types: grantTypes,
    response_types: ["code"],
  };
}

/** The client a token request names, authenticated as it registered (public clients: PKCE alone). */
export async function authenticateClient(input: { clientId?: string; clientSecret?: string }): Promise<OAuthClient> {
  const client = input.clientId ? await findOAuthClient({ id: input.clientId }) : undefined;
  if (!client) throw new OAuthError("invalid_client", "Unknown client.", 401);
  if (client.authMethod !== "none") {
    const given = Buffer.from(hashToken(input.clientSecret ?? ""), "hex");
    const stored = Buffer.from(client.secretHash ?? "", "hex");
    if (!input.clientSecret || stored.length !== given.length || !timingSafeEqual(stored, given)) {
      throw new OAuthError("invalid_client", "The client could not be authenticated.", 401);
    }
  }
  return client;
}
