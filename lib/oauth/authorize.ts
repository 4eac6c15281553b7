/**
 * The authorization endpoint (docs/mcp.md): the request is checked before anything is shown (an unknown client or
 * a return address it did not register gets an error page, never a redirect); the owner's consent names the client
 * as it registered itself, the sites it may use and whether it may only read or also propose changes; approving
 * makes a grant and a single-use, short-lived code bound to the client, the return address and the PKCE challenge.
 */
import { recordAuditSafely } from "@/lib/audit/chain";
import { randomUUID } from "node:crypto";
import { now } from "@/lib/clock";
import { findOAuthClient, findUserById, insertOAuthCode, insertOAuthGrant } from "@/lib/db/queries";
import type { McpAccess, OAuthClient } from "@/lib/db/schema";
import { listSites } from "@/lib/sites/sites";
import { matchesRegisteredUri } from "./clients";
import { hashToken, issuer, mcpResource, newToken, OAUTH_LIMITS } from "./config";

/** The authorization request's parameters, as the consent page and its form carry them. */
export const AUTHORIZE_PARAMS = [
  "response_type",
  "client_id",
  "redirect_uri",
  "code_challenge",
  "code_challenge_method",
  "state",
  "scope",
  "resource",
] as const;

export type AuthorizeParams = Partial<Record<(typeof AUTHORIZE_PARAMS)[number], string>>;

export type AuthorizeRequest = {
  client: OAuthClient;
  redirectUri: string;
  codeChallenge: string;
  state?: string;
  /** The most the client asked for; the owner may give less. */
  maxAccess: McpAccess;
  resource: string;
};

export type AuthorizeCheck =
  | { ok: true; request: AuthorizeRequest }
  /** `redirect`: tell the client through its (verified) return address; otherwise show `message` to the person. */
  | { ok: false; message: string; redirect?: string };

const CHALLENGE = /^[A-Za-z0-9_-]{43,128}$/;

export function errorRedirect(redirectUri: string, error: string, description: string, state?: string): string {
  const url = new URL(redirectUri);
  url.searchParams.set("error", error);
  url.searchParams.set("error_description", description);
  if (state) url.searchParams.set("state", state);
  url.searchParams.set("iss", issuer());
  return url.toString();
}

export async function checkAuthorizeRequest(params: AuthorizeParams): Promise<AuthorizeCheck> {
  const client = params.client_id ? await findOAuthClient({ id: params.client_id }) : undefined;
  if (!client) return { ok: false, message: "This application is not registered with Sitewright." };
  const redirectUri = params.redirect_uri;
  if (!redirectUri || !matchesRegisteredUri(client, redirectUri)) {
    return {
      ok: false,
      message: "The application's return address is not one it registered, so Sitewright will not send you there.",
    };
  }
  const fail = (error: string, description: string): AuthorizeCheck => ({
    ok: false,
    message: description,
    redirect: errorRedirect(redirectUri, error, description, params.state),
  });
  if (params.response_type !== "code") return fail("unsupported_response_type", "Only response_type=code is offered.");
  if (!params.code_challenge || !CHALLENGE.test(params.code_challenge) || params.code_challenge_method !== "S256") {
    return fail("invalid_request", "PKCE is required: send code_challenge with code_challenge_method=S256.");
  }
  const resource = params.resource ?? mcpResource();
  if (resource.replace(/\/+$/, "") !== mcpResource()) {
    return fail("invalid_target", `Tokens are issued only for ${mcpResource()}.`);
  }
  const scopes = (params.scope ?? "").split(/\s+/).filter(Boolean);
  const maxAccess: McpAccess = scopes.length > 0 && !scopes.includes("sites:propose") ? "read" : "propose";
  return {
    ok: true,
    request: {
      client,
      redirectUri,
      codeChallenge: params.code_challenge,
      ...(params.state ? { state: params.state } : {}),
      maxAccess,
      resource: mcpResource(),
    },
  };
}

/**
 * What the consent page may say above its form when the owner's answer could not be taken. The page's link carries
 * only a code from this list, and the page prints only our sentence for it: never text from the link, which anyone
 * can write ("This application is verified by Sitewright"). SECURITY.md, "Requests the service makes for a site".
 */
export const CONSENT_PROBLEMS = {
  no_site_chosen: "Choose at least one of your connected sites.",
} as const;
export type ConsentProblem = keyof typeof CONSENT_PROBLEMS;

/** Our sentence for a code from the consent page's link; nothing for anything else. */
export function consentProblemText(code: unknown): string | undefined {
  return typeof code === "string" && Object.hasOwn(CONSENT_PROBLEMS, code)
    ? CONSENT_PROBLEMS[code as ConsentProblem]
    : undefined;
}

/** The sites the owner can grant: their connected ones. */
export async function grantableSites(userId: string) {
  return (await listSites({ userId })).filter((site) => site.status === "active");
}

/** The owner's answer; returns where to send the browser. */
export async function decideAuthorization(input: {
  userId: string;
  request: AuthorizeRequest;
  approve: boolean;
  siteIds: string[];
  access: McpAccess;
}): Promise<{ redirect: string } | { problem: ConsentProblem }> {
  const { request } = input;
  if (!input.approve) {
    return { redirect: errorRedirect(request.redirectUri, "access_denied", "The owner declined.", request.state) };
  }
  const own = new Set((await grantableSites(input.userId)).map((site) => site.id));
  const siteIds = [...new Set(input.siteIds)].filter((id) => own.has(id));
  if (siteIds.length === 0) return { problem: "no_site_chosen" };
  const access: McpAccess = request.maxAccess === "read" ? "read" : input.access;
  const at = now();
  const grant = await insertOAuthGrant({
    id: randomUUID(),
    userId: input.userId,
    clientId: request.client.id,
    siteIds,
    access,
    now: at,
  });
  // Each site's chain records the grant: which client may reach it, and how (docs/teams.md).
  const person = await findUserById({ id: input.userId });
  const name = person?.name?.trim() || person?.email || input.userId;
  for (const siteId of siteIds) {
    await recordAuditSafely({
      siteId,
      actor: { userId: input.userId, name, door: "mcp", client: request.client.name },
      action: "grant",
      subject: { grantId: grant.id },
      details: { access, clientId: request.client.id },
    });
  }
  const code = newToken("swm_code_");
  await insertOAuthCode({
    codeHash: hashToken(code),
    grantId: grant.id,
    clientId: request.client.id,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    resource: request.resource,
    expiresAt: new Date(at.getTime() + OAUTH_LIMITS.codeSeconds * 1000),
  });
  const url = new URL(request.redirectUri);
  url.searchParams.set("code", code);
  if (request.state) url.searchParams.set("state", request.state);
  url.searchParams.set("iss", issuer());
  return { redirect: url.toString() };
}
