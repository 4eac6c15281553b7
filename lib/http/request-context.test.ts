import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { log } from "@/lib/log";
import { pathWithoutQuery, requestIdFor, withRequestContext } from "./request-context.mjs";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
let server: Server;
let base: string;
let hops = 0;
const lines: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) =>
    withRequestContext(
      req,
      res,
      hops,
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 5)); // the context survives awaits
        log.info("route line", { seen: req.headers["x-request-id"] });
        res.writeHead(req.url?.startsWith("/missing") ? 404 : 200, { "content-type": "text/plain" });
        res.end("ok");
      },
      (line) => lines.push(line),
    ),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe("request ids and the access log", () => {
  const levelAtStart = process.env.LOG_LEVEL;
  const written: string[] = [];
  beforeAll(() => {
    process.env.LOG_LEVEL = "info";
    vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
  });
  afterAll(() => {
    vi.restoreAllMocks();
    process.env.LOG_LEVEL = levelAtStart;
  });
  afterEach(() => {
    hops = 0;
    lines.length = 0;
    written.length = 0;
  });

  it("gives every request an id, returns it in X-Request-Id and puts it on the route's log lines", async () => {
    const response = await fetch(`${base}/sites/1?code=ABCD-1234`);
    const id = response.headers.get("x-request-id")!;
    expect(id).toMatch(UUID);
    const routeLine = JSON.parse(written.find((line) => line.includes("route line"))!);
    expect(routeLine).toMatchObject({ level: "info", message: "route line", requestId: id, seen: id });
  });

  it("writes one JSON access line per request: method, path without the query, status, duration and id", async () => {
    const response = await fetch(`${base}/missing/page?token=secret-value`, { method: "POST", body: "x" });
    await response.text();
    await vi.waitFor(() => expect(lines).toHaveLength(1));
    const access = JSON.parse(lines[0]!);
    expect(access).toMatchObject({
      level: "info",
      message: "request",
      method: "POST",
      path: "/missing/page",
      status: 404,
      requestId: response.headers.get("x-request-id"),
    });
    expect(access.durationMs).toBeGreaterThanOrEqual(0);
    expect(lines[0]).not.toContain("secret-value");
  });

  it("ignores a client's own X-Request-Id unless a trusted proxy sent it", async () => {
    const direct = await fetch(base, { headers: { "X-Request-Id": "client-chosen-id" } });
    expect(direct.headers.get("x-request-id")).toMatch(UUID);
    hops = 1;
    const proxied = await fetch(base, { headers: { "X-Request-Id": "proxy-id-123" } });
    expect(proxied.headers.get("x-request-id")).toBe("proxy-id-123");
  });

  it("replaces an incoming id that is not sane (spaces, line breaks, too long) even from a trusted proxy", () => {
    for (const bad of ["two words", 'x"}\n{"level":"error', "a".repeat(129), ""]) {
      expect(requestIdFor(bad, 1)).toMatch(UUID);
    }
    expect(pathWithoutQuery("/a/b?c=1#d")).toBe("/a/b");
  });
});
