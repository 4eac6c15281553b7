/**
 * OAuth endpoints answer in OAuth's own error format (RFC 6749 §5.2, RFC 7591 §3.2.2): `{error, error_description}`,
 * which MCP clients read; everything else of Sitewright keeps the contract's `{error: {code, message}}`.
 */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
    this.name = "OAuthError";
  }
}

export const isOAuthError = (value: unknown): value is OAuthError =>
  value instanceof Error && value.name === "OAuthError" && typeof (value as OAuthError).error === "string";

export function oauthJson(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store", pragma: "no-cache", ...headers },
  });
}

export function oauthErrorResponse(error: unknown): Response {
  if (isOAuthError(error)) {
    return oauthJson(error.status, { error: error.error, error_description: error.description }, error.headers);
  }
  return oauthJson(500, { error: "server_error", error_description: "Something went wrong on our side." });
}
