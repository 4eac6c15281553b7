/**
 * The signed client for a sandbox: the same client as for a live site (lib/sites/client.ts), pointed at the
 * sandbox's loopback port. Sandboxes are ours and only published on 127.0.0.1, so this one client may use http
 * and a loopback host; the exemption is scoped to this client (its own allowlist), never to user-given URLs.
 */
import { createSiteClient, type SignedSiteClient } from "@/lib/sites/client";

export type SandboxCredentials = { token: string; secret: string; scopes: string[] };

export const SANDBOX_HOST = "127.0.0.1";

export const sandboxUrl = (hostPort: number) => `http://${SANDBOX_HOST}:${hostPort}`;

export function createSandboxClient(hostPort: number, credentials: SandboxCredentials): SignedSiteClient {
  const baseUrl = sandboxUrl(hostPort);
  return createSiteClient(
    { baseUrl, restUrl: `${baseUrl}/wp-json/`, token: credentials.token, secret: credentials.secret },
    { allowHttp: true, allowlist: [SANDBOX_HOST], timeoutMs: 60_000, maxResponseBytes: 32 * 1024 * 1024 },
  );
}
