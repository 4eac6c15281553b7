/**
 * The media proxy's life span: a sandbox's media is served while the sandbox lives and goes with it. The origin is
 * a local https server with the test CA's localhost certificate; the sandboxes are records only (the proxy never
 * asks their containers), in real PostgreSQL.
 */
import { randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as getMedia } from "@/app/sandbox/media/[sandboxId]/[...path]/route";
import { advanceClockForTests } from "@/lib/clock";
import { deleteSandboxRow, insertUser, reservePoolSlot, upsertSandboxManifest } from "@/lib/db/queries";
import { useTestDatabase } from "@/lib/db/testing";
import { ensureTestCa } from "@/scripts/lib/tls";
import { call } from "@/test/http";
import { setSandboxManagerForTests } from "./index";
import { pruneMediaCache } from "./media-proxy";
import { createTestSandboxes, type TestSandboxes } from "./testing";

useTestDatabase();

/** A 1×1 PNG. */
const PIXEL = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);
const FILE = "2026/01/pixel.png";

describe("a sandbox's media", () => {
  let origin: Server;
  let uploads: string;
  let t: TestSandboxes;
  let userId: string;

  beforeAll(async () => {
    const ca = ensureTestCa();
    origin = createServer({ cert: readFileSync(ca.cert), key: readFileSync(ca.key) }, (req, res) => {
      if (req.url === `/wp-content/uploads/${FILE}`) {
        res.writeHead(200, { "content-type": "image/png" }).end(PIXEL);
      } else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve));
    uploads = `https://localhost:${(origin.address() as AddressInfo).port}/wp-content/uploads/`;
    t = createTestSandboxes();
    await setSandboxManagerForTests(t.manager);
    userId = `user-${randomUUID()}`;
    await insertUser({
      id: userId,
      email: `${userId}@example.com`,
      name: null,
      passwordHash: "x",
      createdAt: new Date(),
    });
  });
  afterAll(async () => {
    await setSandboxManagerForTests(undefined);
    await t?.cleanup();
    await new Promise((resolve) => origin?.close(resolve));
  });

  /** A ready sandbox's record with a manifest pointing at the origin's uploads. */
  async function sandboxRecord(minutes: number) {
    const now = new Date();
    const expiresAt = new Date(now.getTime() + minutes * 60_000);
    const row = await reservePoolSlot({
      poolSize: 1000,
      row: {
        id: randomUUID(),
        status: "ready",
        userId,
        imageTag: "sitewright-sandbox:test",
        createdAt: now,
        lastUsedAt: now,
        expiresAt,
      },
    });
    await upsertSandboxManifest({
      sandboxId: row!.id,
      sourceSiteId: null,
      sourceUrl: uploads.replace("/wp-content/uploads/", ""),
      sourceUploadsUrl: uploads,
      imageTag: row!.imageTag,
      items: [],
      createdAt: now,
      expiresAt,
    });
    return row!.id;
  }
  const media = (sandboxId: string) => call(getMedia as never, { params: { sandboxId, path: FILE } });
  const cachedFiles = (sandboxId: string) => {
    const dir = path.join(t.config.mediaCacheDir, sandboxId);
    return existsSync(dir) ? readdirSync(dir) : [];
  };

  it("answers 404 once the sandbox has expired, and its cached files are removed", async () => {
    const id = await sandboxRecord(10);
    const first = await media(id);
    expect(first.status).toBe(200);
    expect(first.headers.get("x-sitewright-cache")).toBe("miss");
    expect((await media(id)).headers.get("x-sitewright-cache")).toBe("hit");

    advanceClockForTests(11 * 60_000);
    const gone = await media(id);
    expect(gone.status).toBe(404);
    expect(gone.json.error.code).toBe("not_found");
    expect(cachedFiles(id)).toEqual([]);
  });

  it("loses the media of deleted and expired sandboxes at the next prune, and keeps a live sandbox's", async () => {
    const live = await sandboxRecord(30);
    const deleted = await sandboxRecord(30);
    const expiring = await sandboxRecord(5);
    for (const id of [live, deleted, expiring]) expect((await media(id)).status).toBe(200);
    await deleteSandboxRow({ id: deleted });

    const removed = await pruneMediaCache({
      cacheDir: t.config.mediaCacheDir,
      maxBytes: 1024 * 1024,
      now: new Date(Date.now() + 6 * 60_000),
    });
    expect(removed).toBe(2);
    expect(cachedFiles(deleted)).toEqual([]);
    expect(cachedFiles(expiring)).toEqual([]);
    expect(cachedFiles(live).length).toBeGreaterThan(0);
    expect((await media(live)).headers.get("x-sitewright-cache")).toBe("hit");
  });
});
