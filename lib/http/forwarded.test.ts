import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { CLIENT_IP_HEADER, clientAddress, normalizeAddress, parseProxyHops, stampClientAddress } from "./forwarded.mjs";

describe("the client address under TRUSTED_PROXY_HOPS", () => {
  it("is the TCP peer with no trusted proxy, whatever X-Forwarded-For says", () => {
    expect(clientAddress({ peer: "203.0.113.9", forwardedFor: "198.51.100.1", hops: 0 })).toBe("203.0.113.9");
    expect(clientAddress({ peer: "::ffff:203.0.113.9", forwardedFor: undefined, hops: 0 })).toBe("203.0.113.9");
    expect(clientAddress({ peer: undefined, forwardedFor: "198.51.100.1", hops: 0 })).toBe("unknown");
  });

  it("is the Nth entry from the right with N trusted proxies, over every X-Forwarded-For header", () => {
    const forwardedFor = "1.1.1.1, 198.51.100.7, 10.0.0.2";
    expect(clientAddress({ peer: "10.0.0.3", forwardedFor, hops: 1 })).toBe("10.0.0.2");
    expect(clientAddress({ peer: "10.0.0.3", forwardedFor, hops: 2 })).toBe("198.51.100.7");
    expect(clientAddress({ peer: "10.0.0.3", forwardedFor: ["1.1.1.1", "198.51.100.7, 10.0.0.2"], hops: 2 })).toBe(
      "198.51.100.7",
    );
  });

  it("falls back to the peer when fewer proxies appended than configured, or the entry is not an address", () => {
    expect(clientAddress({ peer: "10.0.0.3", forwardedFor: "198.51.100.7", hops: 2 })).toBe("10.0.0.3");
    expect(clientAddress({ peer: "10.0.0.3", forwardedFor: undefined, hops: 1 })).toBe("10.0.0.3");
    expect(clientAddress({ peer: "10.0.0.3", forwardedFor: "evil, not-an-ip", hops: 1 })).toBe("10.0.0.3");
  });

  it("normalizes ports, brackets and IPv4-mapped IPv6", () => {
    expect(normalizeAddress("[2001:DB8::1]:443")).toBe("2001:db8::1");
    expect(normalizeAddress("192.0.2.1:5000")).toBe("192.0.2.1");
    expect(normalizeAddress("::ffff:192.0.2.1")).toBe("192.0.2.1");
    expect(normalizeAddress("<script>")).toBeUndefined();
  });

  it("refuses a TRUSTED_PROXY_HOPS that is not a small whole number", () => {
    expect(parseProxyHops("")).toBe(0);
    expect(parseProxyHops(undefined)).toBe(0);
    expect(parseProxyHops("2")).toBe(2);
    for (const bad of ["-1", "1.5", "two", "11"]) expect(() => parseProxyHops(bad)).toThrow(/TRUSTED_PROXY_HOPS/);
  });

  it("replaces a client-sent copy of the header on the request", () => {
    const req = {
      socket: { remoteAddress: "203.0.113.9" },
      headers: { [CLIENT_IP_HEADER]: "1.2.3.4", "x-forwarded-for": "5.6.7.8" },
      rawHeaders: [
        "X-Sitewright-Client-IP",
        "1.2.3.4",
        "X-Forwarded-For",
        "5.6.7.8",
        "x-sitewright-client-ip",
        "9.9.9.9",
      ],
    } as unknown as IncomingMessage;
    expect(stampClientAddress(req, 0)).toBe("203.0.113.9");
    expect(req.headers[CLIENT_IP_HEADER]).toBe("203.0.113.9");
    expect(req.rawHeaders).toEqual(["X-Forwarded-For", "5.6.7.8", CLIENT_IP_HEADER, "203.0.113.9"]);
  });
});
