/**
 * An MCP client's OAuth side as an agent keeps it: its registration, tokens and PKCE verifier in memory, and the
 * authorization address it would open in the owner's browser (for the test to follow). Used with the official SDK's
 * client in vitest (lib/mcp/mcp.test.ts) and in Chromium (e2e/mcp.spec.ts).
 */
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";

export type MemoryOAuthProvider = OAuthClientProvider & { authUrl?: URL };

export function memoryOAuthProvider(name: string, redirectUrl: string): MemoryOAuthProvider {
  let info: Awaited<ReturnType<NonNullable<OAuthClientProvider["clientInformation"]>>>;
  let tokens: Awaited<ReturnType<OAuthClientProvider["tokens"]>>;
  let verifier = "";
  const self: MemoryOAuthProvider = {
    get redirectUrl() {
      return redirectUrl;
    },
    get clientMetadata() {
      return {
        client_name: name,
        redirect_uris: [redirectUrl],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      };
    },
    clientInformation: () => info,
    saveClientInformation: (value) => {
      info = value;
    },
    tokens: () => tokens,
    saveTokens: (value) => {
      tokens = value;
    },
    redirectToAuthorization: (url) => {
      self.authUrl = url;
    },
    saveCodeVerifier: (value) => {
      verifier = value;
    },
    codeVerifier: () => verifier,
  };
  return self;
}
