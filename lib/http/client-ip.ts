/**
 * The client's address for rate limits (docs/api.md, Configuration: TRUSTED_PROXY_HOPS; SECURITY.md, "Client
 * addresses"). Route handlers do not see the socket, so the server in front of Next.js decides it
 * (server.mjs with lib/http/forwarded.mjs: the TCP peer by default, the Nth X-Forwarded-For entry from the right
 * with N trusted proxies) and passes it in a header it controls, deleting any copy a client sent. Deploying
 * behind a proxy: docs/operations.md.
 *
 * Without that server (plain `next dev`, or route handlers called directly in tests), nothing knows the peer:
 * outside production the last X-Forwarded-For entry is used as before (Next.js fills it with the socket address
 * when absent), so local development and tests behave as they always did; in production every such request
 * shares one bucket, which fails closed (a spray is throttled as one client) and is logged once.
 */
import { headers } from "next/headers";
import { log } from "@/lib/log";
import { CLIENT_IP_ENV, CLIENT_IP_HEADER } from "./forwarded.mjs";

const UNVERIFIED = "unverified-peer";
let warned = false;

export function clientIp(request: Request): string {
  if (process.env[CLIENT_IP_ENV] === CLIENT_IP_HEADER) {
    return (request.headers.get(CLIENT_IP_HEADER) ?? UNVERIFIED).slice(0, 64);
  }
  if (process.env.NODE_ENV === "production") {
    if (!warned) {
      warned = true;
      log.error("client addresses are unknown: start the app with `npm start` (server.mjs), see docs/operations.md");
    }
    return UNVERIFIED;
  }
  const forwarded = request.headers.get("x-forwarded-for");
  const last = forwarded
    ?.split(",")
    .map((part) => part.trim())
    .filter(Boolean)
    .at(-1);
  return (last ?? request.headers.get("x-real-ip") ?? "unknown").slice(0, 64);
}

/** The client's address in a server component or server action, read the same way route handlers read it. */
export async function currentClientIp(): Promise<string> {
  return clientIp(new Request("http://internal/", { headers: await headers() }));
}
