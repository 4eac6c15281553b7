import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { call } from "@/test/http";
import {
  AppError,
  causeChain,
  ERROR_STATUS,
  ErrorCode,
  findCause,
  isAppError,
  systemCode,
  toClientError,
} from "./errors";
import { clientErrorFor } from "./http/client-error";
import { json, route } from "./http/route";

describe("the error vocabulary", () => {
  it("is a closed list: every code has one status, and an unknown code is refused", () => {
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(new AppError(code as ErrorCode, "x").status).toBe(status);
    }
    expect(ErrorCode.safeParse("not_a_code").success).toBe(false);
    // @ts-expect-error a code that is not in the list does not compile
    new AppError("teapot", "x");
  });

  it("recognises an AppError made by another copy of this module, as Next.js bundles make", async () => {
    vi.resetModules();
    const copy = await import("./errors");
    const foreign = new copy.AppError("capacity_reached", "Full.", { headers: { "Retry-After": "60" } });
    expect(foreign instanceof AppError).toBe(false); // why instanceof cannot be used
    expect(isAppError(foreign)).toBe(true);
    const res = await call(
      route({ auth: "none" }, () => {
        throw foreign;
      }),
    );
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("60");
    expect(res.json).toEqual({ error: { code: "capacity_reached", message: "Full." } });
  });

  it("is not fooled by a look-alike: a plain object with a code is an internal error", () => {
    const lookAlike = { code: "not_found", status: 404, message: "x" };
    expect(isAppError(lookAlike)).toBe(false);
    expect(toClientError(lookAlike)).toMatchObject({ status: 500, code: "internal_error", unexpected: true });
  });

  it("never shows an internal error's own message", () => {
    const answer = toClientError(new AppError("internal_error", "secret detail from a stack"));
    expect(answer.message).not.toContain("secret");
  });
});

describe("one mapper for routes and server actions", () => {
  const cases: unknown[] = [
    new AppError("email_taken", "Taken."),
    new AppError("invalid_code", "Wrong.", { details: { attemptsLeft: 3 } }),
    new AppError("site_unreachable", "Down.", { details: { kind: "unreachable" } }),
    new Error("a bug"),
    Object.assign(new Error("connect failed"), { code: "ECONNREFUSED" }),
  ];

  it("gives a form exactly what the JSON route answers", async () => {
    for (const error of cases) {
      const res = await call(
        route({ auth: "none" }, () => {
          throw error;
        }),
      );
      const action = clientErrorFor(error, { action: "test" });
      expect(res.status).toBe(action.status);
      expect(res.json.error).toEqual({
        code: action.code,
        message: action.message,
        ...(action.details ? { details: action.details } : {}),
      });
    }
    expect(clientErrorFor(cases[4], { action: "test" })).toMatchObject({ status: 503, code: "store_unavailable" });
  });
});

describe("walking an error's causes", () => {
  it("finds a code anywhere in the chain and stops on a cycle", () => {
    const root = Object.assign(new Error("socket"), { code: "ECONNRESET" });
    const outer = new Error("fetch failed", { cause: new Error("wrapped", { cause: root }) });
    expect(systemCode(outer)).toBe("ECONNRESET");
    expect(findCause(outer, (e) => e === root)).toBe(root);
    const loop: { cause?: unknown } = {};
    loop.cause = loop;
    expect([...causeChain(loop)].length).toBe(8);
    expect(systemCode(loop)).toBeUndefined();
  });
});

describe("path parameters", () => {
  const seen: string[] = [];
  const byId = route({ auth: "none" }, ({ params }) => {
    seen.push(params.id!);
    return json(200, { id: params.id });
  });
  const byPath = route({ auth: "none" }, ({ params }) => json(200, { sandboxId: params.sandboxId, path: params.path }));
  const id = "0b6f0d5e-8a51-4d0b-9c51-2f1c7e7f0a11";

  it("answers 404 not_found for an id that is not one of ours, before the handler runs", async () => {
    for (const bad of ["\0", "%00", "%C0%AF", "%FF", "1", `${id}x`, id.toUpperCase(), "../etc", "a\u0001b"]) {
      const res = await call(byId, { params: { id: bad } });
      expect(res.status, bad).toBe(404);
      expect(res.json.error.code).toBe("not_found");
    }
    expect(seen).toEqual([]);
    expect((await call(byId, { params: { id } })).json).toEqual({ id });
  });

  it("checks every segment of a catch-all and every parameter named …Id", async () => {
    const ok = await call(byPath, { params: { sandboxId: id, path: ["2024", "01", "photo.jpg"] } });
    expect(ok.json).toEqual({ sandboxId: id, path: "2024/01/photo.jpg" });
    for (const params of [
      { sandboxId: "nope", path: ["a.jpg"] },
      { sandboxId: id, path: ["a\0.jpg"] },
      { sandboxId: id, path: ["%FF.jpg"] },
    ]) {
      expect((await call(byPath, { params })).status).toBe(404);
    }
  });

  it("uses a route's own params schema instead of the id rule", async () => {
    const bySlug = route({ auth: "none", params: z.object({ slug: z.string().regex(/^[a-z-]+$/) }) }, ({ params }) =>
      json(200, params),
    );
    expect((await call(bySlug, { params: { slug: "hello-world" } })).status).toBe(200);
    expect((await call(bySlug, { params: { slug: "Hello" } })).status).toBe(404);
  });
});
