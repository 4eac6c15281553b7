/**
 * OAuth 2.1 for MCP clients (docs/mcp.md): Sitewright is both the authorization server and the protected resource
 * (`${APP_URL}/mcp`). Lifetimes, the resource, and how tokens are made and stored (hashes only).
 */
import { createHash, randomBytes } from "node:crypto";
import { env } from "@/lib/env";

export const OAUTH_LIMITS = {
  codeSeconds: 300,
  /** Access tokens are short-lived; refresh tokens rotate on every use. */
  accessSeconds: 30 * 60,
  refreshSeconds: 30 * 24 * 60 * 60,
  redirectUris: 10,
  registrationsPerMinute: 10,
} as const;

/** What a client may ask for; the owner's consent decides. */
export const OAUTH_SCOPES = { read: "sites:read", propose: "sites:read sites:propose" } as const;

export const issuer = () => env().APP_URL.replace(/\/+$/, "");
/** The one resource our tokens are for (RFC 8707): the MCP endpoint. */
export const mcpResource = () => `${issuer()}/mcp`;
export const protectedResourceMetadataUrl = () => `${issuer()}/.well-known/oauth-protected-resource`;

export const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");
export const newToken = (prefix: string) => `${prefix}${randomBytes(32).toString("base64url")}`;
