/**
 * The OAuth endpoints' HTTP side: metadata documents (RFC 9728, RFC 8414), registration, token and revocation,
 * each bounded in size and rate per client address, answering in OAuth's error format, open to browser-based
 * clients (CORS without credentials: these endpoints never read cookies).
 */
import { clientIp } from "@/lib/http/client-ip";
import { isAppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { enforceRateLimit } from "@/lib/rate-limit";
import { registerClient } from "./clients";
import { issuer, mcpResource, OAUTH_LIMITS } from "./config";
import { isOAuthError, OAuthError, oauthErrorResponse, oauthJson } from "./errors";
import { exchangeToken, revokeToken } from "./tokens";

const MAX_BODY = 16 * 1024;

export const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
  "access-control-allow-headers": "authorization, content-type, mcp-protocol-version, mcp-session-id, last-event-id",
  "access-control-expose-headers": "www-authenticate, mcp-session-id, mcp-protocol-version",
  "access-control-max-age": "600",
};

export const preflight = () => new Response(null, { status: 204, headers: CORS });

export function protectedResourceMetadata() {
  return oauthJson(
    200,
    {
      resource: mcpResource(),
      authorization_servers: [issuer()],
      scopes_supported: ["sites:read", "sites:propose"],
      bearer_methods_supported: ["header"],
      resource_name: "Sitewright",
      resource_documentation: `${issuer()}/`,
    },
    { ...CORS, "cache-control": "public, max-age=300" },
  );
}

export function authorizationServerMetadata() {
  const base = issuer();
  return oauthJson(
    200,
    {
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/oauth/register`,
      revocation_endpoint: `${base}/oauth/revoke`,
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none", "client_secret_post", "client_secret_basic"],
      revocation_endpoint_auth_methods_supported: ["none", "client_secret_post", "client_secret_basic"],
      scopes_supported: ["sites:read", "sites:propose"],
      authorization_response_iss_parameter_supported: true,
      service_documentation: `${base}/`,
    },
    { ...CORS, "cache-control": "public, max-age=300" },
  );
}

async function readBody(request: Request): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (Number.isFinite(declared) && declared > MAX_BODY)
    throw new OAuthError("invalid_request", "The body is too large.", 413);
  const reader = request.body?.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  while (reader) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_BODY) {
      await reader.cancel().catch(() => undefined);
      throw new OAuthError("invalid_request", "The body is too large.", 413);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

async function limit(request: Request, name: string, perMinute: number) {
  try {
    await enforceRateLimit({ key: `oauth-${name}:${clientIp(request)}`, limit: perMinute });
  } catch (error) {
    if (isAppError(error) && error.code === "rate_limited") {
      throw new OAuthError("rate_limited", error.message, 429, error.headers ?? {});
    }
    throw error;
  }
}

/** Runs an endpoint, turning every failure into OAuth's error answer (never a stack trace). */
async function endpoint(work: () => Promise<Response>): Promise<Response> {
  try {
    return await work();
  } catch (error) {
    if (!isOAuthError(error)) log.error("OAuth endpoint failed", { error });
    const response = oauthErrorResponse(error);
    for (const [name, value] of Object.entries(CORS)) response.headers.set(name, value);
    return response;
  }
}

export const register = (request: Request) =>
  endpoint(async () => {
    await limit(request, "register", OAUTH_LIMITS.registrationsPerMinute);
    const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (type !== "application/json") throw new OAuthError("invalid_client_metadata", "Send the metadata as JSON.");
    let body: unknown;
    try {
      body = JSON.parse(await readBody(request));
    } catch (error) {
      if (isOAuthError(error)) throw error;
      throw new OAuthError("invalid_client_metadata", "The body is not valid JSON.");
    }
    return oauthJson(201, await registerClient(body), CORS);
  });

async function formOf(request: Request): Promise<URLSearchParams> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    throw new OAuthError("invalid_request", "Send the request as application/x-www-form-urlencoded.");
  }
  const form = new URLSearchParams(await readBody(request));
  for (const name of new Set(form.keys())) {
    if (form.getAll(name).length > 1) throw new OAuthError("invalid_request", `${name} is given more than once.`);
  }
  return form;
}

export const token = (request: Request) =>
  endpoint(async () => {
    await limit(request, "token", 60);
    const answer = await exchangeToken(await formOf(request), request.headers.get("authorization"));
    return oauthJson(200, answer, CORS);
  });

export const revoke = (request: Request) =>
  endpoint(async () => {
    await limit(request, "revoke", 60);
    await revokeToken(await formOf(request), request.headers.get("authorization"));
    return oauthJson(200, {}, CORS);
  });
