/**
 * The signed client for a sandbox: the same client as for a live site (lib/sites/client.ts), pointed at the
 * endpoint the sandbox's driver answered and its row stores (`http://127.0.0.1:<port>` on Docker, the pod's
 * address on Kubernetes). Sandboxes are ours and reachable only from the service, so this one client may use
 * http and a private or loopback host: the exemption is scoped to this client (its allowlist is the endpoint's
 * host alone), never to user-given URLs.
 */
import { createSiteClient, type SignedSiteClient } from "@/lib/sites/client";

export type SandboxCredentials = { token: string; secret: string; scopes: string[] };

/** `http://<host>:<port>` with nothing after it; anything else is refused (a stored row is data, not trust). */
export function sandboxOrigin(endpoint: string): URL {
  const url = new URL(endpoint);
  if (url.protocol !== "http:" || url.pathname !== "/" || url.search || url.hash || url.username || url.password)
    throw new Error(`not a sandbox endpoint: ${endpoint}`);
  return url;
}

export function createSandboxClient(endpoint: string, credentials: SandboxCredentials): SignedSiteClient {
  const url = sandboxOrigin(endpoint);
  return createSiteClient(
    { baseUrl: url.origin, restUrl: `${url.origin}/wp-json/`, token: credentials.token, secret: credentials.secret },
    { allowHttp: true, allowlist: [url.hostname], timeoutMs: 60_000, maxResponseBytes: 32 * 1024 * 1024 },
  );
}
