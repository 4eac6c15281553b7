/**
 * The contract's request signature (docs/signing.md), shared byte for byte with the plugin.
 * `test/vectors/signing.json` pins it down for both implementations; docs/signing.md explains it.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { LIMITS } from "../vocabulary";

/** Flat query parameters: pairs (repeated names allowed) or a record. */
export type QueryInput =
  | ReadonlyArray<readonly [string, string]>
  | Readonly<Record<string, string | number | boolean>>
  | URLSearchParams;

export type SignableRequest = {
  /** Unix time in milliseconds, as the decimal string sent in `X-Sitewright-Timestamp`. */
  timestamp: string | number;
  method: string;
  /** The REST route as WordPress reports it, e.g. `/wp/v2/pages/12` (no `/wp-json`, no query). */
  route: string;
  query?: QueryInput;
  /** The raw body exactly as sent; absent or empty means the hash of "". */
  body?: string | Uint8Array;
};

export const SIGNATURE_VERSION = "v1";
/** The parameter WordPress uses to carry the route on sites without pretty permalinks; never signed. */
export const ROUTE_PARAM = "rest_route";

const utf8 = new TextEncoder();
const UNRESERVED = /[A-Za-z0-9\-._~]/;

export class SigningInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SigningInputError";
  }
}

/** RFC 3986 percent-encoding of the UTF-8 bytes: only `A-Z a-z 0-9 - . _ ~` stay, `%XX` in upper case. */
export function percentEncode(value: string): string {
  if (!value.isWellFormed()) throw new SigningInputError("Query names and values must be well-formed Unicode.");
  let out = "";
  for (const byte of utf8.encode(value)) {
    const char = String.fromCharCode(byte);
    out += byte < 0x80 && UNRESERVED.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

export function queryPairs(query: QueryInput | undefined): Array<[string, string]> {
  if (!query) return [];
  if (query instanceof URLSearchParams) return [...query.entries()];
  if (Array.isArray(query)) return query.map(([name, value]) => [String(name), String(value)]);
  return Object.entries(query as Record<string, string | number | boolean>).map(([name, value]) => {
    if (value !== null && typeof value === "object") {
      throw new SigningInputError(
        `Query parameter "${name}" is not flat: only strings, numbers and booleans can be signed.`,
      );
    }
    return [name, String(value)];
  });
}

/** WordPress's `untrailingslashit()`: it strips every trailing `/` and `\` before routing; empty means `/`. */
function untrailingslashit(route: string): string {
  const trimmed = route.replace(/[/\\]+$/, "");
  return trimmed === "" ? "/" : trimmed;
}

/**
 * The route line of the string to sign: the route as `WP_REST_Request::get_route()` reports it, then, when
 * there are parameters other than `rest_route`, `?` and the encoded pairs sorted by encoded name, then encoded
 * value (byte order), joined by `&`.
 */
export function canonicalRoute(route: string, query?: QueryInput): string {
  if (!route.startsWith("/")) throw new SigningInputError("A route starts with '/'.");
  if (route.includes("?") || route.includes("#"))
    throw new SigningInputError("Pass query parameters separately from the route.");
  const encoded = queryPairs(query)
    .filter(([name]) => name !== ROUTE_PARAM)
    .map(([name, value]) => {
      if (/[[\]]/.test(name)) throw new SigningInputError(`Query parameter "${name}" is not flat.`);
      return [percentEncode(name), percentEncode(value)] as const;
    })
    .sort(([nameA, valueA], [nameB, valueB]) => compareBytes(nameA, nameB) || compareBytes(valueA, valueB))
    .map(([name, value]) => `${name}=${value}`);
  const path = untrailingslashit(route);
  return encoded.length ? `${path}?${encoded.join("&")}` : path;
}

/** Encoded strings are ASCII, so UTF-16 code unit order is byte order (PHP's `strcmp`). */
function compareBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function bodyHash(body?: string | Uint8Array): string {
  return createHash("sha256")
    .update(body ?? "")
    .digest("hex");
}

function canonicalTimestamp(timestamp: string | number): string {
  const text = typeof timestamp === "number" ? String(timestamp) : timestamp;
  if (!/^[0-9]{1,16}$/.test(text))
    throw new SigningInputError("The timestamp is unix time in milliseconds, as digits.");
  return text;
}

function canonicalMethod(method: string): string {
  const upper = method.toUpperCase();
  if (!/^[A-Z]+$/.test(upper)) throw new SigningInputError("The method is letters only, e.g. GET.");
  return upper;
}

export function stringToSign(request: SignableRequest): string {
  return [
    canonicalTimestamp(request.timestamp),
    canonicalMethod(request.method),
    canonicalRoute(request.route, request.query),
    bodyHash(request.body),
  ].join("\n");
}

function digest(secret: string, request: SignableRequest): Buffer {
  if (!secret) throw new SigningInputError("The signing secret is empty.");
  return createHmac("sha256", secret).update(stringToSign(request)).digest();
}

/** `v1=<hex HMAC-SHA256(secret, string_to_sign)>`; the key is the secret string's UTF-8 bytes. */
export function sign(secret: string, request: SignableRequest): string {
  return `${SIGNATURE_VERSION}=${digest(secret, request).toString("hex")}`;
}

const SIGNATURE_HEADER = /^v1=([0-9a-fA-F]{64})$/;

export type VerifyOptions = {
  /** When set, also refuse timestamps more than `toleranceMs` away from `now` (either way). */
  now?: number;
  toleranceMs?: number;
};

/**
 * True when `signature` is the signature of `request`. Malformed or wrong-length headers are simply false;
 * the comparison is constant-time over two 32-byte digests.
 */
export function verify(
  secret: string,
  request: SignableRequest,
  signature: string,
  options: VerifyOptions = {},
): boolean {
  const match = SIGNATURE_HEADER.exec(typeof signature === "string" ? signature.trim() : "");
  let expected: Buffer;
  try {
    expected = digest(secret, request);
  } catch {
    return false;
  }
  const given = match?.[1] ? Buffer.from(match[1], "hex") : Buffer.alloc(expected.length);
  const equal = timingSafeEqual(expected, given) && Boolean(match);
  if (!equal) return false;
  if (options.now !== undefined) {
    const skew = Math.abs(options.now - Number(request.timestamp));
    if (!(skew <= (options.toleranceMs ?? LIMITS.signatureWindowMs))) return false;
  }
  return true;
}
