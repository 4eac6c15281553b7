/**
 * The shared signing test vectors (`test/vectors/signing.json`), loaded by the TypeScript and the PHP tests.
 * Regenerate with `npx tsx lib/sites/signing-vectors.ts --write`; the signing tests fail if the file drifts.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { bodyHash, canonicalRoute, sign, stringToSign } from "./signing";

export type SigningVector = {
  name: string;
  timestamp: string;
  method: string;
  route: string;
  query: Array<[string, string]>;
  body: string;
  canonicalRoute: string;
  bodySha256: string;
  stringToSign: string;
  signature: string;
};

export const VECTOR_SECRET = "swsec_7Qe4vN0pXk2bL9mZr5tYc8uHd3wJf6gA1sEoKiTnVyB";
export const VECTORS_PATH = fileURLToPath(new URL("../../test/vectors/signing.json", import.meta.url));

type Case = Pick<SigningVector, "name" | "method" | "route" | "query" | "body">;

const cases: Case[] = [
  { name: "GET without a query", method: "GET", route: "/sitewright/v1/info", query: [], body: "" },
  { name: "GET of a core route", method: "GET", route: "/wp/v2/pages/12", query: [], body: "" },
  {
    name: "query values that need encoding: space, plus, slash, tilde, star, unicode, empty",
    method: "GET",
    route: "/wp/v2/pages",
    query: [
      ["search", "hello world+more"],
      ["path", "a/b"],
      ["tilde", "~user"],
      ["star", "*"],
      ["title", "Café ☕ 日本"],
      ["empty", ""],
      ["reserved", "!'()&=?#%"],
    ],
    body: "",
  },
  {
    name: "query names that need encoding",
    method: "GET",
    route: "/wp/v2/posts",
    query: [
      ["per_page", "5"],
      ["a b", "1"],
      ["é", "2"],
      ["_fields", "id,title"],
    ],
    body: "",
  },
  {
    name: "repeated names are sorted by encoded value in byte order, not numerically",
    method: "GET",
    route: "/wp/v2/pages",
    query: [
      ["include", "9"],
      ["include", "10"],
      ["include", "1a"],
      ["include", "A"],
      ["include", ""],
    ],
    body: "",
  },
  {
    name: "names sort by their encoded form: upper case before lower case, escapes before letters",
    method: "GET",
    route: "/wp/v2/pages",
    query: [
      ["order", "asc"],
      ["Order", "desc"],
      ["~x", "1"],
      ["éx", "2"],
      ["_x", "3"],
      ["-x", "4"],
    ],
    body: "",
  },
  {
    name: "POST with a JSON body containing unicode",
    method: "POST",
    route: "/wp/v2/pages",
    query: [],
    body: JSON.stringify({ title: "Über uns — 私たちについて", content: "<p>Grüße 👋</p>", status: "draft" }),
  },
  {
    name: "POST with an empty body hashes the empty string",
    method: "POST",
    route: "/sitewright/v1/revoke",
    query: [],
    body: "",
  },
  { name: "PUT with a JSON body", method: "PUT", route: "/wp/v2/pages/12", query: [], body: '{"title":"New title"}' },
  { name: "DELETE with a query", method: "DELETE", route: "/wp/v2/pages/12", query: [["force", "true"]], body: "" },
  {
    name: "rest_route-style request: rest_route is never signed, the other parameters are",
    method: "GET",
    route: "/wp/v2/pages",
    query: [
      ["rest_route", "/wp/v2/pages"],
      ["per_page", "2"],
      ["context", "edit"],
    ],
    body: "",
  },
  {
    name: "rest_route as the only parameter leaves no query",
    method: "GET",
    route: "/sitewright/v1/preflight",
    query: [["rest_route", "/sitewright/v1/preflight"]],
    body: "",
  },
  {
    name: "a trailing slash is removed, as WordPress does before routing",
    method: "GET",
    route: "/wp/v2/pages/",
    query: [["per_page", "1"]],
    body: "",
  },
  { name: "the index route is a single slash", method: "GET", route: "/", query: [], body: "" },
  {
    name: "a template id keeps its inner double slash",
    method: "GET",
    route: "/wp/v2/templates/twentytwentythree//home",
    query: [],
    body: "",
  },
];

export function buildSigningVectors() {
  const base = 1_767_225_600_000; // 2026-01-01T00:00:00Z
  const vectors: SigningVector[] = cases.map((entry, index) => {
    const request = { ...entry, timestamp: String(base + index * 1_001) };
    return {
      name: entry.name,
      timestamp: request.timestamp,
      method: entry.method,
      route: entry.route,
      query: entry.query,
      body: entry.body,
      canonicalRoute: canonicalRoute(entry.route, entry.query),
      bodySha256: bodyHash(entry.body),
      stringToSign: stringToSign(request),
      signature: sign(VECTOR_SECRET, request),
    };
  });
  return { secret: VECTOR_SECRET, vectors };
}

export function renderSigningVectors(): string {
  return `${JSON.stringify(buildSigningVectors(), null, 2)}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1] && process.argv.includes("--write")) {
  writeFileSync(VECTORS_PATH, renderSigningVectors());
  console.log(`wrote ${VECTORS_PATH}`);
}
