import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AppError } from "@/lib/errors";
import { call } from "@/test/http";
import { json, route } from "./route";

const echo = route(
  { auth: "none", body: z.strictObject({ name: z.string().min(1), count: z.number().int() }) },
  async ({ body }) => json(200, body),
);

describe("the route wrapper", () => {
  it("answers invalid JSON with 400 invalid_json", async () => {
    const res = await call(echo, { rawBody: "{nope", headers: { "content-type": "application/json" } });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe("invalid_json");
  });

  it("answers invalid UTF-8 with 400 invalid_json", async () => {
    const res = await call(echo, {
      rawBody: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe("invalid_json");
  });

  it("answers schema failures with 400 invalid_input and the issue paths", async () => {
    const res = await call(echo, { body: { name: "", count: "3", extra: true } });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe("invalid_input");
    const paths = res.json.error.details.issues.map((issue: { path: string[] }) => issue.path.join("."));
    expect(paths).toEqual(expect.arrayContaining(["name", "count"]));
    expect(res.json.error.message).toMatch(/not valid/);
  });

  it("refuses bodies over 64 KiB with 413, whatever Content-Length says", async () => {
    const big = JSON.stringify({ name: "x".repeat(70 * 1024), count: 1 });
    const declared = await call(echo, { rawBody: big, headers: { "content-type": "application/json" } });
    expect(declared.status).toBe(413);
    expect(declared.json.error.code).toBe("payload_too_large");
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    const request = new Request("http://localhost:3000/", {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": "10" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    const undeclared = await echo(request, { params: Promise.resolve({}) });
    expect(undeclared.status).toBe(413);
  });

  it.each([
    ["a NUL in a value", '{"name":"a\\u0000b","count":1}', ["name"]],
    ["a lone surrogate in a value", '{"name":"\\ud800","count":1}', ["name"]],
    ["a NUL in a key", '{"na\\u0000me":"x","count":1}', ["na\\0me"]],
  ])("refuses %s with 400 invalid_input naming where it is", async (_name, raw, path) => {
    const res = await call(echo, { rawBody: raw, headers: { "content-type": "application/json" } });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe("invalid_input");
    expect(res.json.error.details.issues[0].path).toEqual(path);
  });

  it("refuses JSON nested deeper than 64 levels without overflowing", async () => {
    const deep = "[".repeat(30_000) + "]".repeat(30_000);
    const res = await call(echo, { rawBody: deep, headers: { "content-type": "application/json" } });
    expect(res.status).toBe(400);
    expect(["invalid_input", "invalid_json"]).toContain(res.json.error.code);
  });

  it("refuses non-JSON content types with 415", async () => {
    const res = await call(echo, {
      rawBody: "name=x",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(res.status).toBe(415);
    expect(res.json.error.code).toBe("unsupported_media_type");
  });

  it("reads a POST with no body as {} where the body is optional, and still checks any body that is sent", async () => {
    const optional = route(
      { auth: "none", body: z.strictObject({ upTo: z.string().optional() }), optionalBody: true },
      async ({ body }) => json(200, body),
    );
    const bare = await call(optional, { method: "POST" });
    expect(bare.status, bare.text).toBe(200);
    expect(bare.json).toEqual({});
    expect((await call(optional, { body: { upTo: "item-3" } })).json).toEqual({ upTo: "item-3" });
    expect((await call(optional, { body: { other: 1 } })).status).toBe(400);
    expect((await call(optional, { rawBody: "x", headers: { "content-type": "text/plain" } })).status).toBe(415);
    expect((await call(echo, { method: "POST" })).status).toBe(415);
  });

  it("maps an AppError to its status, code, details and headers", async () => {
    const handler = route({ auth: "none" }, async () => {
      throw new AppError("rate_limited", "Slow down.", {
        headers: { "Retry-After": "7" },
        details: { a: 1 },
      });
    });
    const res = await call(handler);
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("7");
    expect(res.json).toEqual({ error: { code: "rate_limited", message: "Slow down.", details: { a: 1 } } });
  });

  it("turns anything unexpected into a plain 500 with no internals", async () => {
    const handler = route({ auth: "none" }, async () => {
      throw new TypeError("Cannot read properties of undefined (reading 'secretThing') at /srv/app/lib/x.ts:12");
    });
    const res = await call(handler);
    expect(res.status).toBe(500);
    expect(res.json.error.code).toBe("internal_error");
    expect(res.text).not.toMatch(/secretThing|\.ts|TypeError|at /);
  });

  it("answers 503 store_unavailable when the database cannot be reached", async () => {
    const handler = route({ auth: "none" }, async () => {
      throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    });
    const res = await call(handler);
    expect(res.status).toBe(503);
    expect(res.json.error.code).toBe("store_unavailable");
  });

  it("answers 401 before reading the body of a session route", async () => {
    const handler = route({ auth: "session", body: z.object({ a: z.string() }) }, async () => json(200, {}));
    const res = await call(handler, { rawBody: "{bad", headers: { "content-type": "application/json" } });
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe("unauthenticated");
  });

  describe("cross-site requests", () => {
    const cases: [string, Record<string, string>, number][] = [
      ["our exact origin", { origin: "http://localhost:3000" }, 200],
      ["no origin (a non-browser client)", {}, 200],
      ["same-origin fetch metadata", { origin: "http://localhost:3000", "sec-fetch-site": "same-origin" }, 200],
      ["another site", { origin: "https://evil.test" }, 403],
      ["our origin as a prefix of theirs", { origin: "http://localhost:3000.evil.test" }, 403],
      ["another port", { origin: "http://localhost:3001" }, 403],
      ["another scheme", { origin: "https://localhost:3000" }, 403],
      ["the null origin", { origin: "null" }, 403],
      ["Sec-Fetch-Site cross-site", { "sec-fetch-site": "cross-site" }, 403],
    ];
    it.each(cases)("%s → %i", async (_name, headers, status) => {
      const res = await call(echo, { body: { name: "a", count: 1 }, headers });
      expect(res.status).toBe(status);
      if (status === 403) expect(res.json.error.code).toBe("cross_site_request");
    });

    it("lets routes the plugin calls opt out", async () => {
      const open = route({ auth: "none", csrf: false }, async () => json(200, { ok: true }));
      expect((await call(open, { method: "POST", headers: { origin: "https://site.example" } })).status).toBe(200);
    });
  });
});
