import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  bodyHash,
  canonicalRoute,
  percentEncode,
  sign,
  type SignableRequest,
  SigningInputError,
  stringToSign,
  verify,
} from "./signing";
import { renderSigningVectors, type SigningVector, VECTORS_PATH } from "./signing-vectors";

const vectorFile = JSON.parse(readFileSync(VECTORS_PATH, "utf8")) as { secret: string; vectors: SigningVector[] };

describe("the shared test vectors", () => {
  it("match what the generator produces today, so the file cannot drift from the code", () => {
    expect(readFileSync(VECTORS_PATH, "utf8")).toBe(renderSigningVectors());
  });

  it.each(vectorFile.vectors.map((vector) => [vector.name, vector] as const))("reproduce: %s", (_name, vector) => {
    expect(canonicalRoute(vector.route, vector.query)).toBe(vector.canonicalRoute);
    expect(bodyHash(vector.body)).toBe(vector.bodySha256);
    expect(stringToSign(vector)).toBe(vector.stringToSign);
    expect(sign(vectorFile.secret, vector)).toBe(vector.signature);
    expect(verify(vectorFile.secret, vector, vector.signature)).toBe(true);
    expect(verify(`${vectorFile.secret}x`, vector, vector.signature)).toBe(false);
  });

  it("cover every case the plugin must agree on", () => {
    const names = vectorFile.vectors.map((vector) => vector.name).join("\n");
    for (const needle of ["unicode", "empty", "repeated", "rest_route", "trailing slash", "DELETE", "POST"]) {
      expect(names).toContain(needle);
    }
  });
});

describe("percent-encoding", () => {
  it("leaves only RFC 3986 unreserved characters as they are and writes upper-case escapes", () => {
    expect(percentEncode("AZaz09-._~")).toBe("AZaz09-._~");
    expect(percentEncode(" +/*!'()")).toBe("%20%2B%2F%2A%21%27%28%29");
    expect(percentEncode("é")).toBe("%C3%A9");
    expect(percentEncode("😀")).toBe("%F0%9F%98%80");
  });

  it("refuses a lone surrogate, which no site could receive as sent", () => {
    expect(() => percentEncode("\uD800")).toThrow(SigningInputError);
  });
});

describe("the canonical route", () => {
  it("sorts by name then value and drops rest_route", () => {
    expect(
      canonicalRoute("/wp/v2/pages", [
        ["b", "2"],
        ["a", "2"],
        ["a", "1"],
        ["rest_route", "/x"],
      ]),
    ).toBe("/wp/v2/pages?a=1&a=2&b=2");
  });

  it("accepts a record and renders numbers and booleans as text", () => {
    expect(canonicalRoute("/wp/v2/pages", { per_page: 5, force: true })).toBe("/wp/v2/pages?force=true&per_page=5");
  });

  it("refuses parameters that are not flat", () => {
    expect(() => canonicalRoute("/wp/v2/pages", [["status[]", "draft"]])).toThrow(SigningInputError);
    expect(() => canonicalRoute("/wp/v2/pages", { status: ["draft"] } as never)).toThrow(SigningInputError);
  });

  it("refuses a route carrying its own query or not starting with a slash", () => {
    expect(() => canonicalRoute("/wp/v2/pages?x=1")).toThrow(SigningInputError);
    expect(() => canonicalRoute("wp/v2/pages")).toThrow(SigningInputError);
  });
});

describe("verification", () => {
  const request: SignableRequest = { timestamp: "1767225600000", method: "GET", route: "/sitewright/v1/info" };
  const secret = "a-secret";

  it("is false, never an exception, for malformed or wrong-length signatures", () => {
    const good = sign(secret, request);
    for (const bad of [
      "",
      "v1=",
      "v1=abc",
      good.slice(0, -1),
      `${good}0`,
      good.toUpperCase(),
      `v2=${good.slice(3)}`,
      `v1=${"g".repeat(64)}`,
    ]) {
      expect(verify(secret, request, bad)).toBe(false);
    }
    expect(verify(secret, request, undefined as never)).toBe(false);
    expect(verify(secret, { ...request, timestamp: "soon" }, good)).toBe(false);
  });

  it("accepts 299 seconds of skew either way and refuses 301 when given a clock", () => {
    const now = 1_767_225_600_000;
    const at = (offset: number) => ({ ...request, timestamp: String(now + offset) });
    for (const offset of [-299_000, 299_000])
      expect(verify(secret, at(offset), sign(secret, at(offset)), { now })).toBe(true);
    for (const offset of [-301_000, 301_000])
      expect(verify(secret, at(offset), sign(secret, at(offset)), { now })).toBe(false);
  });
});

const flatQuery = fc
  .array(fc.tuple(fc.string({ unit: "grapheme" }), fc.string({ unit: "grapheme" })), { maxLength: 6 })
  .map((pairs) => pairs.filter(([name]) => name !== "rest_route" && !/[[\]]/.test(name)) as Array<[string, string]>);
const routeSegment = fc.stringMatching(/^[A-Za-z0-9_.~-]{1,12}$/);
const route = fc.array(routeSegment, { minLength: 1, maxLength: 5 }).map((segments) => `/${segments.join("/")}`);
const requestArb: fc.Arbitrary<SignableRequest & { query: Array<[string, string]>; body: string }> = fc.record({
  timestamp: fc.integer({ min: 1_000_000_000_000, max: 9_999_999_999_999 }).map(String),
  method: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE"),
  route,
  query: flatQuery,
  body: fc.string({ unit: "grapheme", maxLength: 200 }),
});
const secretArb = fc.string({ minLength: 1, maxLength: 64 });

describe("the signer, for any request", () => {
  it("verifies what it signed", () => {
    fc.assert(fc.property(secretArb, requestArb, (secret, request) => verify(secret, request, sign(secret, request))));
  });

  it("gives the same signature whatever the order of the query parameters", () => {
    fc.assert(
      fc.property(secretArb, requestArb, (secret, request) => {
        const reversed = { ...request, query: [...request.query].reverse() };
        return sign(secret, reversed) === sign(secret, request);
      }),
    );
  });

  it("refuses any single change to the timestamp, method, route, query or body", () => {
    const mutation = fc.constantFrom("timestamp", "method", "route", "queryValue", "queryAdded", "body");
    fc.assert(
      fc.property(
        secretArb,
        requestArb,
        mutation,
        fc.string({ minLength: 1, maxLength: 8 }),
        (secret, request, what, extra) => {
          const signature = sign(secret, request);
          const changed = { ...request, query: [...request.query] };
          switch (what) {
            case "timestamp":
              changed.timestamp = String(Number(request.timestamp) + 1);
              break;
            case "method":
              changed.method = request.method === "GET" ? "POST" : "GET";
              break;
            case "route":
              changed.route = `${request.route}/x`;
              break;
            case "queryValue":
              if (changed.query.length === 0) changed.query.push(["x", extra]);
              else changed.query[0] = [changed.query[0]![0], `${changed.query[0]![1]}${extra}`];
              break;
            case "queryAdded":
              changed.query.push([`n${extra}`.replace(/[[\]]/g, ""), extra]);
              break;
            case "body":
              changed.body = `${request.body}${extra}`;
              break;
          }
          return !verify(secret, changed, signature);
        },
      ),
    );
  });

  it("refuses a signature made with any other secret", () => {
    fc.assert(
      fc.property(secretArb, secretArb, requestArb, (secret, other, request) => {
        fc.pre(secret !== other);
        return !verify(other, request, sign(secret, request));
      }),
    );
  });
});
