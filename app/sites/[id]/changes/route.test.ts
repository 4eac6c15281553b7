/**
 * Bounded answers through the real route handlers and PostgreSQL: the Changes list answers summaries a page at a
 * time however big the change sets are, a set's diff comes a page of items at a time with each side capped, an
 * item cut to fit is read whole from its own route, and `/health` answers while big lists are being read.
 */
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as health } from "@/app/health/route";
import { insertSiteRow } from "@/test/agent-site";
import { DIFF_SIDE_MAX_BYTES } from "@/lib/changes/change-sets";
import { ensureChangeSet, insertChangeItems, type ChangeItemInsert } from "@/lib/db/queries";
import { useTestDatabase } from "@/lib/db/testing";
import { newUser } from "@/test/accounts";
import { call } from "@/test/http";
import { GET as showRoute } from "./[changeSetId]/route";
import { GET as itemRoute } from "./[changeSetId]/items/[itemId]/route";
import { GET as listRoute } from "./route";

useTestDatabase();

const SETS = 50;
const t0 = new Date("2026-05-01T09:00:00Z");
let owner: { cookie: string; id: string };
let siteId: string;
/** The sets' ids in the order the list must give them: newest first, then by id (descending). */
let expectedOrder: string[];

const item = (changeSetId: string, overrides: Partial<ChangeItemInsert> = {}): ChangeItemInsert => ({
  id: randomUUID(),
  changeSetId,
  toolCallId: "call-1",
  kind: "page",
  ref: "post:12",
  action: "update",
  title: "Opening hours",
  summary: "Changed the content",
  before: { title: "Opening hours" },
  after: { title: "Summer opening hours" },
  visible: true,
  change: { ref: "post:12", expect: "v1", action: "update", fields: {} },
  beforeState: null,
  versionRead: "v1",
  status: "applied",
  now: t0,
  ...overrides,
});

/** About 200 KB of page content (markup a visitor would not notice is still markup). */
const content = (n: number, size = 100_000) =>
  `<!-- wp:paragraph --><p>${`Version ${n} of a very long page. `.repeat(Math.ceil(size / 34)).slice(0, size)}</p><!-- /wp:paragraph -->`;

async function newSet(at: Date) {
  return ensureChangeSet({
    id: randomUUID(),
    userId: owner.id,
    siteId,
    conversationId: randomUUID(),
    turnId: randomUUID(),
    target: "live",
    now: at,
  });
}

const list = (query = "", cookie = owner.cookie) =>
  call(listRoute, { cookie, params: { id: siteId }, path: `/sites/${siteId}/changes${query}` });

beforeAll(async () => {
  owner = await newUser("bounded");
  siteId = await insertSiteRow({ userId: owner.id, url: "https://bakery.example", token: "t", secret: "s", info: {} });
  const made: { id: string; at: number }[] = [];
  for (let n = 0; n < SETS; n++) {
    // Pairs made in the same millisecond: the cursor must tell them apart by id.
    const at = new Date(t0.getTime() + Math.floor(n / 2) * 1000);
    const set = await newSet(at);
    await insertChangeItems([
      item(set.id, {
        title: `Page ${n}`,
        before: { title: `Page ${n}`, content: content(n) },
        after: { title: `Page ${n}`, content: content(n + 1) },
        now: at,
      }),
    ]);
    made.push({ id: set.id, at: at.getTime() });
  }
  expectedOrder = made.sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)).map((s) => s.id);
}, 120_000);

describe("GET /sites/:id/changes", () => {
  it("lists 50 change sets of 200 KB each in under 1 MB, as summaries without their items", async () => {
    const res = await list("?limit=100");
    expect(res.status).toBe(200);
    expect(Buffer.byteLength(res.text)).toBeLessThan(1_000_000);
    expect(res.json.changeSets).toHaveLength(SETS);
    expect(res.json.nextCursor).toBeUndefined();
    const newest = res.json.changeSets[0];
    expect(newest).toEqual({
      id: expectedOrder[0],
      conversationId: expect.any(String),
      target: "live",
      status: "pending",
      createdAt: expect.any(String),
      itemCount: 1,
      titles: [expect.stringMatching(/^Page \d+$/)],
      activity: [],
    });
    // The default page is 20 sets, with a cursor for the rest.
    const first = await list();
    expect(first.json.changeSets).toHaveLength(20);
    expect(first.json.nextCursor).toEqual(expect.any(String));
  });

  it("walks every change set exactly once, newest first, following nextCursor", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await list(`?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expect(res.status).toBe(200);
      seen.push(...res.json.changeSets.map((s: { id: string }) => s.id));
      cursor = res.json.nextCursor;
      pages++;
    } while (cursor && pages < 20);
    expect(pages).toBe(Math.ceil(SETS / 7));
    expect(seen).toEqual(expectedOrder);
  });

  it("refuses a cursor it did not give out, or a page size out of range, with 400 invalid_input", async () => {
    const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    for (const query of [
      "?cursor=not-a-cursor!",
      `?cursor=${forged("hello")}`,
      `?cursor=${forged({ t: "2026-02-30T10:00:00.000000Z", i: "x" })}`,
      `?cursor=${forged({ t: "yesterday", i: "x" })}`,
      `?cursor=${forged({ s: 3 })}`,
      `?cursor=${"A".repeat(600)}`,
      "?limit=0",
      "?limit=101",
      "?limit=many",
    ]) {
      const res = await list(query);
      expect(res.status, query).toBe(400);
      expect(res.json.error.code, query).toBe("invalid_input");
    }
  });

  it("answers /health while four list requests read 50 big change sets, and each list stays under 1 MB", async () => {
    const lists = Array.from({ length: 4 }, () => list("?limit=100"));
    const probe = await call(health);
    expect(probe.status).toBe(200);
    expect(probe.json.status).toBe("ok");
    for (const res of await Promise.all(lists)) {
      expect(res.status).toBe(200);
      expect(Buffer.byteLength(res.text)).toBeLessThan(1_000_000);
    }
  });

  it("answers 404 for another user's site", async () => {
    const stranger = await newUser("stranger");
    expect((await list("", stranger.cookie)).status).toBe(404);
  });
});

describe("GET /sites/:id/changes/:changeSetId and its items", () => {
  let setId: string;
  let bigItem: ChangeItemInsert;
  const show = (cursor?: string, cookie = owner.cookie) =>
    call(showRoute, {
      cookie,
      params: { id: siteId, changeSetId: setId },
      path: `/sites/${siteId}/changes/${setId}${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ""}`,
    });

  beforeAll(async () => {
    const set = await newSet(new Date(t0.getTime() - 60_000));
    setId = set.id;
    bigItem = item(set.id, {
      title: "Big page",
      before: { title: "Big page", content: content(1, 200_000) },
      after: { title: "Bigger page", content: content(2, 200_000) },
    });
    const small = Array.from({ length: 149 }, (_, n) => item(set.id, { title: `Small ${n}` }));
    await insertChangeItems([bigItem, ...small]);
  });

  it("gives the items 100 at a time in order, each side of a diff capped and flagged when cut", async () => {
    const first = await show();
    expect(first.status).toBe(200);
    expect(first.json.changeSet).toMatchObject({ id: setId, siteId, itemCount: 150 });
    const items = first.json.changeSet.items;
    expect(items).toHaveLength(100);
    expect(items[0]).toMatchObject({ id: bigItem.id, title: "Big page", truncated: true });
    for (const side of [items[0].before, items[0].after]) {
      expect(Buffer.byteLength(JSON.stringify(side))).toBeLessThanOrEqual(DIFF_SIDE_MAX_BYTES);
      expect(Object.keys(side)).toEqual(["title", "content"]);
    }
    expect(items[0].after.title).toBe("Bigger page");
    expect(items[1].truncated).toBeUndefined();
    expect(items[1].after).toEqual({ title: "Summer opening hours" });
    const second = await show(first.json.nextCursor);
    expect(second.json.changeSet.items).toHaveLength(50);
    expect(second.json.nextCursor).toBeUndefined();
    const titles = [...items, ...second.json.changeSet.items].map((i: { title: string }) => i.title);
    expect(titles).toEqual(["Big page", ...Array.from({ length: 149 }, (_, n) => `Small ${n}`)]);
    expect((await show("garbage")).status).toBe(400);
  });

  it("gives an item whole from its own route, only to the owner", async () => {
    const whole = await call(itemRoute, {
      cookie: owner.cookie,
      params: { id: siteId, changeSetId: setId, itemId: bigItem.id },
    });
    expect(whole.status).toBe(200);
    expect(whole.json.item).toMatchObject({ id: bigItem.id, before: bigItem.before, after: bigItem.after });
    expect(whole.json.item.truncated).toBeUndefined();
    const stranger = await newUser("stranger");
    const hidden = await call(itemRoute, {
      cookie: stranger.cookie,
      params: { id: siteId, changeSetId: setId, itemId: bigItem.id },
    });
    expect(hidden.status).toBe(404);
    expect((await show(undefined, stranger.cookie)).status).toBe(404);
    const elsewhere = await call(itemRoute, {
      cookie: owner.cookie,
      params: { id: siteId, changeSetId: expectedOrder[0]!, itemId: bigItem.id },
    });
    expect(elsewhere.status).toBe(404);
  });
});
