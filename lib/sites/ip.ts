/**
 * Which IP addresses a user-given URL may reach: globally routable unicast only (SECURITY.md, "SSRF").
 * Ranges from the IANA IPv4 and IPv6 special-purpose registries; anything embedding an IPv4 address in IPv6
 * (mapped, translated, 6to4, Teredo) is refused outright rather than unwrapped.
 */
import { isIP } from "node:net";

type Range = { bytes: number[]; prefix: number; why: string };

function v4(cidr: string, why: string): Range {
  const [address, prefix] = cidr.split("/") as [string, string];
  return { bytes: address.split(".").map(Number), prefix: Number(prefix), why };
}

function v6(cidr: string, why: string): Range {
  const [address, prefix] = cidr.split("/") as [string, string];
  return { bytes: [...parseIPv6(address)!], prefix: Number(prefix), why };
}

const blockedV4: Range[] = [
  v4("0.0.0.0/8", "this network"),
  v4("10.0.0.0/8", "private"),
  v4("100.64.0.0/10", "carrier-grade NAT"),
  v4("127.0.0.0/8", "loopback"),
  v4("169.254.0.0/16", "link-local (cloud metadata)"),
  v4("172.16.0.0/12", "private"),
  v4("192.0.0.0/24", "IETF protocol assignments"),
  v4("192.0.2.0/24", "documentation"),
  v4("192.88.99.0/24", "6to4 relay anycast"),
  v4("192.168.0.0/16", "private"),
  v4("198.18.0.0/15", "benchmarking"),
  v4("198.51.100.0/24", "documentation"),
  v4("203.0.113.0/24", "documentation"),
  v4("224.0.0.0/4", "multicast"),
  v4("240.0.0.0/4", "reserved (and broadcast)"),
];

/** IPv6 must be inside 2000::/3 (global unicast); that excludes ::, ::1, mapped, ULA, link-local, multicast. */
const globalUnicastV6 = v6("2000::/3", "");
const blockedV6: Range[] = [
  v6("2001::/23", "IETF protocol assignments (Teredo and others)"),
  v6("2001:db8::/32", "documentation"),
  v6("2002::/16", "6to4 (embeds an IPv4 address)"),
  v6("3fff::/20", "documentation"),
];

function inRange(bytes: Uint8Array, range: Range): boolean {
  if (bytes.length !== range.bytes.length) return false;
  let bits = range.prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((bytes[i]! & mask) !== (range.bytes[i]! & mask)) return false;
  }
  return true;
}

export function parseIPv4(address: string): Uint8Array | undefined {
  if (isIP(address) !== 4) return undefined;
  return Uint8Array.from(address.split(".").map(Number));
}

export function parseIPv6(address: string): Uint8Array | undefined {
  if (isIP(address) !== 6 || address.includes("%")) return undefined;
  let text = address;
  const tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    tail.push(...parseIPv4(dotted[1]!)!);
    text = `${text.slice(0, -dotted[1]!.length)}0:0`;
  }
  const [head, rest] = text.includes("::") ? (text.split("::") as [string, string]) : [text, undefined];
  const groups = (part: string) => (part ? part.split(":").map((group) => parseInt(group, 16)) : []);
  const left = groups(head);
  const right = rest === undefined ? [] : groups(rest);
  const all = rest === undefined ? left : [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
  const bytes = new Uint8Array(16);
  all.forEach((group, i) => {
    bytes[i * 2] = group >> 8;
    bytes[i * 2 + 1] = group & 0xff;
  });
  if (tail.length) bytes.set(tail, 12);
  return bytes;
}

/** Why an address may not be reached, or undefined when it is globally routable unicast. */
export function blockedReason(address: string): string | undefined {
  const bare = address.replace(/^\[(.*)\]$/, "$1");
  const four = parseIPv4(bare);
  if (four) return blockedV4.find((range) => inRange(four, range))?.why;
  if (bare.includes("%")) return "scoped IPv6 address";
  const six = parseIPv6(bare);
  if (!six) return "not an IP address";
  if (!inRange(six, globalUnicastV6)) return describeNonGlobalV6(six);
  return blockedV6.find((range) => inRange(six, range))?.why;
}

function describeNonGlobalV6(bytes: Uint8Array): string {
  if (bytes.every((byte, i) => byte === (i === 15 ? 1 : 0))) return "loopback";
  if (bytes.every((byte) => byte === 0)) return "unspecified";
  if (bytes.slice(0, 10).every((byte) => byte === 0) && bytes[10] === 0xff && bytes[11] === 0xff)
    return "IPv4-mapped IPv6";
  if ((bytes[0]! & 0xfe) === 0xfc) return "unique local (private)";
  if (bytes[0] === 0xfe && (bytes[1]! & 0xc0) === 0x80) return "link-local";
  if (bytes[0] === 0xff) return "multicast";
  return "not global unicast";
}

export const isPublicAddress = (address: string): boolean => blockedReason(address) === undefined;
