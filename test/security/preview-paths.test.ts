/**
 * Malformed sandbox preview paths against the built app as `npm start` runs it (server.mjs over `next build`'s
 * output), over HTTP with the path sent as it is: Next.js throws on a segment whose escapes do not decode before
 * any route code runs, so only the built app shows what a browser gets. Never a 5xx: `404 not_found` (or
 * `400 invalid_input`); a well-formed path is `503 sandbox_unavailable` here, sandboxes being off. Needs
 * `npm run build` first (npm test builds before vitest).
 */
import http from "node:http";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { type BuiltApp, startBuiltApp } from "@/test/built-app";

const ID = "3f2b8a4e-1c2d-4e5f-8a9b-0c1d2e3f4a5b";

type Answer = { status: number; body: string };
const CODES = ["not_found", "invalid_input", "sandbox_unavailable"];

/** One GET with the path exactly as given (fetch would normalise `..` and escapes). */
function getRaw(port: number, rawPath: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path: rawPath, method: "GET" }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** The contract's error shape, with one of the codes this path may answer. */
function expectContractError(answer: Answer, codes: string[], rawPath: string) {
  const parsed = JSON.parse(answer.body) as { error?: { code?: string; message?: string } };
  expect(codes, `${rawPath}: ${answer.body}`).toContain(parsed.error?.code);
  expect(typeof parsed.error?.message, rawPath).toBe("string");
}

describe("the built app's /preview paths", () => {
  let database: TestDatabase;
  let app: BuiltApp;
  beforeAll(async () => {
    database = await createTestDatabase();
    app = await startBuiltApp({ DATABASE_URL: database.url });
  }, 90_000);
  afterAll(async () => {
    await app?.stop();
    await database?.drop();
  });

  it("answers malformed preview paths 404 not_found or 400 invalid_input, never a 5xx", async () => {
    for (const rawPath of [
      "/preview/%FF/",
      "/preview/%FF",
      "/preview/%00",
      "/preview/%00/",
      "/preview/%C0%AF/",
      "/preview/%zz/",
      "/preview/%/",
      "/preview/%E2%82/x",
      `/preview/${ID}/%FF`,
      `/preview/${ID}/%FF/`,
      `/preview/${ID}/wp-includes/%C0%AF.css`,
      `/preview/${ID}/a%2`,
      `/preview/${ID}/%00`,
      `/preview/${"a".repeat(2000)}/`,
      `/preview/${ID}${"/a".repeat(500)}`,
      "/preview/../sessions",
      `/preview/${ID}/../../health`,
      `/preview/${ID}/..%2f..%2fetc/passwd`,
      "/preview/not-a-uuid/",
      `/preview/${ID.toUpperCase()}/`,
    ]) {
      const answer = await getRaw(app.port, rawPath);
      if (answer.status >= 500) expect(answer.status, rawPath).toBe(503);
      // `..` may be normalised out of /preview onto another of our pages (`/sessions`: 405): not a 5xx either.
      if (answer.status === 400 || answer.status === 404) expectContractError(answer, CODES, rawPath);
    }
    for (const rawPath of ["/preview/%FF/", `/preview/${ID}/%FF`, "/preview/%zz/"]) {
      const answer = await getRaw(app.port, rawPath);
      expect(answer.status, rawPath).toBe(404);
      expectContractError(answer, ["not_found"], rawPath);
    }
  });

  it("never answers a bare 5xx for a random raw path under /preview", async () => {
    const segment = fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9._~-]{0,12}$/),
      fc.constantFrom(ID, "..", ".", "%", "%2", "%zz", "%2F", "%25", "%2e%2e", "wp-includes", "style.css"),
      fc
        .uint8Array({ minLength: 1, maxLength: 4 })
        .map((bytes) => [...bytes].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("")),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 5 }), async (segments) => {
        const rawPath = `/preview/${segments.join("/")}`;
        const answer = await getRaw(app.port, rawPath);
        if (answer.status < 500) return;
        // Sandboxes are off here: a well-formed path reaches the route and hears so, in the contract's shape.
        expect(answer.status, rawPath).toBe(503);
        expectContractError(answer, ["sandbox_unavailable"], rawPath);
      }),
      { numRuns: 150 },
    );
  });
});
