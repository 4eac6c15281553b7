/**
 * Which address a request comes from, decided where the socket is known: the custom server (server.mjs) and
 * the reliability suite's instances call `clientAddress` and put the answer in `CLIENT_IP_HEADER`, after
 * deleting any copy a client sent; route handlers read it through lib/http/client-ip.ts. Plain JavaScript, so
 * `npm start` runs it without a compile step. Deploying behind a proxy: docs/operations.md.
 */
import { isIP } from "node:net";

/** The header the server sets for route handlers; a client-sent copy is always deleted first. */
export const CLIENT_IP_HEADER = "x-sitewright-client-ip";
/** Set in the environment by a server that sets CLIENT_IP_HEADER on every request (server.mjs). */
export const CLIENT_IP_ENV = "SITEWRIGHT_CLIENT_IP_HEADER";
/** More trusted proxies than this is a configuration mistake. */
export const MAX_PROXY_HOPS = 10;

/** `::ffff:192.0.2.1` → `192.0.2.1`; `[2001:db8::1]:443` → `2001:db8::1`; `192.0.2.1:5000` → `192.0.2.1`. */
export function normalizeAddress(value) {
  let address = String(value ?? "").trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed) address = bracketed[1];
  else if (/^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(":"));
  if (/^::ffff:\d{1,3}(\.\d{1,3}){3}$/i.test(address)) address = address.slice(7);
  return isIP(address) ? address.toLowerCase() : undefined;
}

/**
 * The client's address under TRUSTED_PROXY_HOPS = `hops`:
 * - 0: the TCP peer's address; X-Forwarded-For is ignored, whatever it says.
 * - N: the Nth entry of X-Forwarded-For from the right (each of the N proxies appended the address it saw).
 *   When the header has fewer than N entries, or that entry is not an IP address, the request did not come
 *   through all N proxies: the peer's address counts, since nothing else can be trusted.
 * `forwardedFor` is every X-Forwarded-For value in order (several headers are one comma-separated list).
 */
export function clientAddress({ peer, forwardedFor, hops }) {
  const fromPeer = normalizeAddress(peer) ?? "unknown";
  if (!hops) return fromPeer;
  const values = Array.isArray(forwardedFor) ? forwardedFor : forwardedFor ? [forwardedFor] : [];
  const entries = values
    .join(",")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length < hops) return fromPeer;
  return normalizeAddress(entries[entries.length - hops]) ?? fromPeer;
}

/** Parses TRUSTED_PROXY_HOPS (empty: 0); throws on anything but a whole number from 0 to MAX_PROXY_HOPS. */
export function parseProxyHops(value) {
  const text = String(value ?? "").trim();
  if (text === "") return 0;
  if (!/^\d+$/.test(text) || Number(text) > MAX_PROXY_HOPS) {
    throw new Error(`TRUSTED_PROXY_HOPS must be a whole number from 0 to ${MAX_PROXY_HOPS}, not "${text}"`);
  }
  return Number(text);
}

/**
 * Replaces any client-sent CLIENT_IP_HEADER on a Node request with the address `clientAddress` decides. Mutates
 * `req.headers` (and `rawHeaders`, which Next.js also reads) before Next.js sees the request.
 */
export function stampClientAddress(req, hops) {
  const address = clientAddress({
    peer: req.socket?.remoteAddress,
    forwardedFor: req.headers["x-forwarded-for"],
    hops,
  });
  const raw = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i].toLowerCase() !== CLIENT_IP_HEADER) raw.push(req.rawHeaders[i], req.rawHeaders[i + 1]);
  }
  raw.push(CLIENT_IP_HEADER, address);
  req.rawHeaders.splice(0, req.rawHeaders.length, ...raw);
  req.headers[CLIENT_IP_HEADER] = address;
  return address;
}
