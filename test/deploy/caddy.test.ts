/**
 * The https front docs/deployment.md shows ("The https front"), run as written: its Caddyfile is taken from the doc,
 * only the site's name and the app's port changed to this machine's, with Caddy's own local CA standing in for the
 * certificate it would get for a real name. Behind it, the built app as `npm start` runs it with
 * TRUSTED_PROXY_HOPS=1: pages and JSON answer over https, the session cookie is Secure, a request id a client sends
 * is replaced by Caddy's, and a client rotating X-Forwarded-For is still one client to the rate limits.
 * Needs `npm run build` first.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Agent, fetch as undiciFetch } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { type BuiltApp, startBuiltApp } from "@/test/built-app";
import { freePort } from "@/test/reliability/support/private-postgres";

const root = path.resolve(import.meta.dirname, "../..");
const work = mkdtempSync(path.join(tmpdir(), "sitewright-caddy-"));
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const LIMIT = 3;
let database: TestDatabase;
let app: BuiltApp;
let caddy: ChildProcess;
let front = "";
let agent: Agent;
let caddyOutput = "";

/** The Caddyfile in docs/deployment.md (the one fenced block marked `caddyfile`). */
function documentedCaddyfile(): string {
  const doc = readFileSync(path.join(root, "docs/deployment.md"), "utf8");
  const blocks = [...doc.matchAll(/^```caddyfile\n([\s\S]*?)^```$/gm)].map(([, block]) => block!);
  expect(blocks).toHaveLength(1);
  return blocks[0]!;
}

const send = (pathname: string, init: Parameters<typeof undiciFetch>[1] = {}) =>
  undiciFetch(`${front}${pathname}`, { ...init, dispatcher: agent });

beforeAll(async () => {
  const caddyPort = await freePort();
  front = `https://localhost:${caddyPort}`;
  database = await createTestDatabase();
  app = await startBuiltApp({
    DATABASE_URL: database.url,
    APP_URL: front,
    TRUSTED_PROXY_HOPS: "1",
    AUTH_RATE_LIMIT: String(LIMIT),
  });
  const site = documentedCaddyfile()
    .replaceAll("sitewright.example.com", `localhost:${caddyPort}`)
    .replaceAll("127.0.0.1:3000", `127.0.0.1:${app.port}`);
  // This machine's stand-ins for the internet: Caddy's local CA instead of a public one, no admin endpoint.
  const global = `{\n\tadmin off\n\tlocal_certs\n\tskip_install_trust\n\tstorage file_system ${work}/data\n}\n`;
  writeFileSync(path.join(work, "Caddyfile"), `${global}\n${site}`);
  caddy = spawn("caddy", ["run", "--adapter", "caddyfile", "--config", path.join(work, "Caddyfile")], {
    env: { ...process.env, XDG_DATA_HOME: work, XDG_CONFIG_HOME: work, HOME: work },
    stdio: ["ignore", "pipe", "pipe"],
  });
  caddy.stdout!.on("data", (chunk) => (caddyOutput += chunk));
  caddy.stderr!.on("data", (chunk) => (caddyOutput += chunk));
  const rootCert = path.join(work, "data", "pki", "authorities", "local", "root.crt");
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      agent = new Agent({ connect: { ca: readFileSync(rootCert, "utf8") } });
      if ((await send("/health")).status === 200) break;
    } catch {
      // Caddy is still starting or issuing its certificate
    }
    if (Date.now() > deadline) throw new Error(`Caddy did not answer:\n${caddyOutput}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}, 120_000);

afterAll(async () => {
  caddy?.kill();
  await app?.stop();
  await database?.drop();
  rmSync(work, { recursive: true, force: true });
});

describe("the documented Caddy front", () => {
  it("serves the app over https, with a Secure session cookie", async () => {
    const health = await send("/health");
    expect(((await health.json()) as { status: string }).status).toBe("ok");
    const signup = await send("/auth/signup", {
      method: "POST",
      headers: { "content-type": "application/json", origin: front },
      body: JSON.stringify({ email: `caddy${Date.now()}@example.com`, password: "a long and unusual passphrase 7" }),
    });
    expect(signup.status).toBe(201);
    expect(signup.headers.get("set-cookie")).toMatch(/; Secure/i);
    expect((await send("/login")).status).toBe(200);
  });

  it("gives every request an id of its own making: a client's X-Request-Id never reaches the app", async () => {
    const response = await send("/health", { headers: { "x-request-id": "chosen-by-the-client" } });
    const id = response.headers.get("x-request-id")!;
    expect(id).toMatch(UUID);
    expect(id).not.toBe("chosen-by-the-client");
  });

  it("keeps a client rotating X-Forwarded-For one client to the rate limits", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 2 * LIMIT + 1; i++) {
      const response = await send("/auth/login", {
        method: "POST",
        headers: { "content-type": "application/json", origin: front, "x-forwarded-for": `198.51.100.${i + 1}` },
        body: JSON.stringify({ email: `nobody${i}@example.com`, password: "a long and unusual passphrase 7" }),
      });
      statuses.push(response.status);
    }
    expect(statuses.slice(0, LIMIT)).toEqual(Array(LIMIT).fill(401));
    expect(statuses).toContain(429);
  });
});
