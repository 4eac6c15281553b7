/**
 * Every state-changing route a browser uses refuses cross-site requests, found by walking app/ so a new route
 * cannot forget it. Exempt: what carries no cookie (the plugin's /sites/redeem, MCP clients' OAuth endpoints and
 * /mcp) and the preview.
 */
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { call } from "./http";

const APP = path.resolve(import.meta.dirname, "../app");
// The preview proxies WordPress's own forms, which post from the preview's opaque origin (`Origin: null`); it
// changes nothing of ours and answers only the sandbox's owner (lib/sandbox/preview.ts, docs/rehearsal.md).
// MCP clients call the OAuth endpoints and /mcp with no cookie (bearer tokens, client credentials, PKCE): nothing
// ambient for another site to ride on, and browser-based clients must reach them (docs/mcp.md).
// A site's abilities door (sites/plugin/calls) is WordPress calling us server to server, signed with the site's
// credentials and carrying no cookie (docs/abilities.md).
const EXEMPT = new Set([
  "sites/redeem",
  "sites/plugin/calls",
  "preview/[sandboxId]/[[...path]]",
  "oauth/register",
  "oauth/token",
  "oauth/revoke",
  "mcp",
]);
const METHODS = ["POST", "PUT", "PATCH", "DELETE"] as const;

function routeFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return routeFiles(full);
    return name === "route.ts" ? [full] : [];
  });
}

const routes = routeFiles(APP).map((file) => path.relative(APP, path.dirname(file)).split(path.sep).join("/"));
const hostileOrigins: [string, Record<string, string>][] = [
  ["another site", { origin: "https://evil.example" }],
  ["our origin as a prefix", { origin: "http://localhost:3000.evil.example" }],
  ["the null origin", { origin: "null" }],
  ["Sec-Fetch-Site: cross-site", { "sec-fetch-site": "cross-site" }],
];

describe("cross-site requests to every state-changing route", () => {
  it("finds the routes", () => {
    expect(routes).toEqual(
      expect.arrayContaining(["auth/signup", "auth/login", "auth/logout", "sites/pair", "chat", "sessions"]),
    );
  });

  for (const route of routes) {
    it(`${route}: every state-changing method refuses cross-site requests${EXEMPT.has(route) ? " (exempt: no cookie)" : ""}`, async () => {
      const module = (await import(path.join(APP, route, "route.ts"))) as Record<string, unknown>;
      const params = Object.fromEntries(
        [...route.matchAll(/\[(?:\.\.\.)?([^\]]+)\]/g)].map(([, name]) => [
          name!,
          "00000000-0000-0000-0000-000000000000",
        ]),
      );
      const path_ = `/${route.replace(/\[(?:\.\.\.)?([^\]]+)\]/g, "x")}`;
      let checked = 0;
      for (const method of METHODS) {
        const handler = module[method] as Parameters<typeof call>[0] | undefined;
        if (!handler) continue;
        checked++;
        for (const [, headers] of hostileOrigins) {
          const res = await call(handler, { method, body: {}, headers, params, path: path_ });
          if (EXEMPT.has(route)) expect(res.status).not.toBe(403);
          else {
            expect(res.status, `${method} /${route} with ${JSON.stringify(headers)}`).toBe(403);
            expect(res.json.error.code).toBe("cross_site_request");
          }
        }
      }
      if (checked === 0) expect(Object.keys(module).some((name) => name === "GET")).toBe(true);
    });
  }
});
