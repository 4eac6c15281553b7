/**
 * The token endpoint (authorization code with PKCE S256, refresh with rotation and reuse detection), revocation
 * (RFC 7009), and the bearer check of every MCP request: the token's hash must name an unexpired, unrevoked access
 * token for exactly our MCP resource under a grant still in force.
 */
import { createHash, randomUUID } from "node:crypto";
import { now } from "@/lib/clock";
import {
  findAccessToken,
  findActiveGrant,
  insertOAuthTokens,
  revokeClientToken,
  revokeGrantTokens,
  revokeTokenFamily,
  touchGrant,
  spendOAuthCode,
  spendRefreshToken,
} from "@/lib/db/queries";
import type { OAuthGrant } from "@/lib/db/schema";
import { authenticateClient } from "./clients";
import { hashToken, mcpResource, newToken, OAUTH_LIMITS, OAUTH_SCOPES, protectedResourceMetadataUrl } from "./config";
import { OAuthError } from "./errors";

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** The client's credentials: HTTP Basic (client_secret_basic, form-encoded parts) or the form's own fields. */
function clientCredentials(form: URLSearchParams, authorization: string | null) {
  if (authorization?.toLowerCase().startsWith("basic ")) {
    const decoded = Buffer.from(authorization.slice(6).trim(), "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon < 0) throw new OAuthError("invalid_client", "Malformed Basic credentials.", 401);
    const part = (value: string) => {
      try {
        return decodeURIComponent(value.replace(/\+/g, " "));
      } catch {
        throw new OAuthError("invalid_client", "Malformed Basic credentials.", 401);
      }
    };
    return { clientId: part(decoded.slice(0, colon)), clientSecret: part(decoded.slice(colon + 1)) };
  }
  return { clientId: form.get("client_id") ?? undefined, clientSecret: form.get("client_secret") ?? undefined };
}

async function issueTokens(grant: OAuthGrant, familyId: string) {
  const at = now();
  const access = newToken("swm_at_");
  const refresh = newToken("swm_rt_");
  await insertOAuthTokens([
    {
      tokenHash: hashToken(access),
      kind: "access",
      grantId: grant.id,
      familyId,
      resource: mcpResource(),
      createdAt: at,
      expiresAt: new Date(at.getTime() + OAUTH_LIMITS.accessSeconds * 1000),
    },
    {
      tokenHash: hashToken(refresh),
      kind: "refresh",
      grantId: grant.id,
      familyId,
      resource: mcpResource(),
      createdAt: at,
      expiresAt: new Date(at.getTime() + OAUTH_LIMITS.refreshSeconds * 1000),
    },
  ]);
  return {
    access_token: access,
    token_type: "Bearer",
    expires_in: OAUTH_LIMITS.accessSeconds,
    refresh_token: refresh,
    scope: OAUTH_SCOPES[grant.access],
  };
}

function checkResource(given: string | null, expected: string) {
  if (given !== null && given.replace(/\/+$/, "") !== expected) {
    throw new OAuthError("invalid_target", `Tokens are issued only for ${expected}.`);
  }
}

export async function exchangeToken(form: URLSearchParams, authorization: string | null) {
  const client = await authenticateClient(clientCredentials(form, authorization));
  const grantType = form.get("grant_type");
  const at = now();
  if (grantType === "authorization_code") {
    const code = form.get("code");
    const verifier = form.get("code_verifier");
    if (!code || !verifier) throw new OAuthError("invalid_request", "code and code_verifier are required.");
    if (!VERIFIER.test(verifier)) throw new OAuthError("invalid_grant", "The code_verifier is not valid.");
    const use = await spendOAuthCode({ codeHash: hashToken(code), now: at });
    if (!use.ok) {
      // A code used twice: revoke what its first use issued (RFC 6749 §4.1.2).
      if (use.reusedGrantId) await revokeGrantTokens({ grantId: use.reusedGrantId, now: at });
      throw new OAuthError("invalid_grant", "The authorization code is not valid (unknown, expired or already used).");
    }
    if (use.clientId !== client.id) throw new OAuthError("invalid_grant", "The code was issued to another client.");
    if (form.get("redirect_uri") !== use.redirectUri) {
      throw new OAuthError("invalid_grant", "redirect_uri does not match the authorization request.");
    }
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    if (challenge !== use.codeChallenge) throw new OAuthError("invalid_grant", "The code_verifier does not match.");
    checkResource(form.get("resource"), use.resource);
    const grant = await findActiveGrant({ id: use.grantId });
    if (!grant) throw new OAuthError("invalid_grant", "The owner revoked this connection.");
    return issueTokens(grant, randomUUID());
  }
  if (grantType === "refresh_token") {
    const refresh = form.get("refresh_token");
    if (!refresh) throw new OAuthError("invalid_request", "refresh_token is required.");
    const use = await spendRefreshToken({ tokenHash: hashToken(refresh), now: at });
    if (!use.ok) {
      // A spent refresh token presented again: someone holds a copy; end the whole family.
      if (use.reusedFamilyId) await revokeTokenFamily({ familyId: use.reusedFamilyId, now: at });
      throw new OAuthError("invalid_grant", "The refresh token is not valid (unknown, expired, revoked or reused).");
    }
    const grant = await findActiveGrant({ id: use.token.grantId });
    if (!grant || grant.clientId !== client.id)
      throw new OAuthError("invalid_grant", "The refresh token is not valid.");
    checkResource(form.get("resource"), use.token.resource);
    return issueTokens(grant, use.token.familyId);
  }
  throw new OAuthError("unsupported_grant_type", "Use authorization_code or refresh_token.");
}

export async function revokeToken(form: URLSearchParams, authorization: string | null): Promise<void> {
  const client = await authenticateClient(clientCredentials(form, authorization));
  const token = form.get("token");
  if (!token) throw new OAuthError("invalid_request", "token is required.");
  await revokeClientToken({ tokenHash: hashToken(token), clientId: client.id, now: now() });
}

export type McpAuth = { grant: OAuthGrant; token: string };

const challenge = (error?: string, description?: string) =>
  [
    `Bearer resource_metadata="${protectedResourceMetadataUrl()}"`,
    ...(error ? [`error="${error}"`] : []),
    ...(description ? [`error_description="${description.replaceAll('"', "'")}"`] : []),
  ].join(", ");

/** The bearer check of an MCP request; a 401 that tells the client where to find our authorization server. */
export async function authenticateMcp(request: Request): Promise<McpAuth> {
  const header = request.headers.get("authorization") ?? "";
  const match = /^Bearer\s+([A-Za-z0-9._~+/=-]+)$/i.exec(header.trim());
  if (!match) {
    throw new OAuthError("invalid_request", "Sign in: this endpoint needs an OAuth access token.", 401, {
      "WWW-Authenticate": challenge(),
    });
  }
  const at = now();
  const found = await findAccessToken({ tokenHash: hashToken(match[1]!), now: at });
  if (!found || found.token.resource !== mcpResource()) {
    throw new OAuthError(
      "invalid_token",
      "The access token is not valid (expired, revoked or for another resource).",
      401,
      {
        "WWW-Authenticate": challenge("invalid_token", "The access token is not valid."),
      },
    );
  }
  await touchGrant({ id: found.grant.id, now: at }).catch(() => undefined);
  return { grant: found.grant, token: match[1]! };
}
