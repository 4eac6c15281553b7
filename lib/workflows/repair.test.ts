/**
 * Re-pairing keeps a site's history, on both stores, through the real plugin's redeem (`Sitewright_Pairing::connect`
 * via its CLI, calling our redeem route over HTTP) on the real WordPress: the change sets made before are listed and
 * undone with the new credentials, the drift rule still holds, the conversations stay, and a re-pairing that
 * expires leaves the site as it was.
 */
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as confirmRoute } from "@/app/sites/[id]/confirm/route";
import { GET as showSiteRoute } from "@/app/sites/[id]/route";
import { GET as listChangesRoute } from "@/app/sites/[id]/changes/route";
import { POST as undoRoute } from "@/app/sites/[id]/changes/[changeSetId]/undo/route";
import { POST as pairRoute } from "@/app/sites/pair/route";
import { POST as redeemRoute } from "@/app/sites/redeem/route";
import { operationsByName } from "@/lib/agent/operations";
import { humanEditPost, writeThroughAgent } from "@/test/changes";
import { readItems } from "@/lib/sites/items";
import { advanceClockForTests, now, resetClockForTests } from "@/lib/clock";
import { findSiteForUser, insertConversation } from "@/lib/db/queries";
import { STORES, useStore } from "@/lib/db/testing";
import { PAIRING_TTL_MS } from "@/lib/sites/pairing";
import { siteClientFor } from "@/lib/sites/sites";
import { ALL_SCOPES } from "@/test/agent-site";
import { newUser } from "@/test/accounts";
import { call } from "@/test/http";
import { type LocalSite, startLocalSite } from "@/scripts/site-local";
import { loadChatPage } from "./chat-turn";

let wp: LocalSite;
let service: Server;
let serviceUrl: string;
const origin = { origin: "http://localhost:3000" };

/** Our redeem route over HTTP, for the plugin's wp_remote_post (the only route the plugin calls). */
async function startRedeemService() {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const answer = await redeemRoute(
      new Request(`http://localhost:3000${req.url}`, {
        method: req.method,
        headers: { "content-type": String(req.headers["content-type"] ?? "") },
        body: Buffer.concat(chunks),
      }),
      { params: Promise.resolve({}) },
    );
    res.writeHead(answer.status, { "content-type": "application/json" });
    res.end(await answer.text());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

beforeAll(async () => {
  wp = await startLocalSite({ allowHttpService: true });
  ({ server: service, url: serviceUrl } = await startRedeemService());
}, 180_000);

afterAll(async () => {
  await new Promise((resolve) => service?.close(resolve));
  await wp?.stop();
});

type Owner = Awaited<ReturnType<typeof newUser>>;

/** The owner asks for a code, and the site's administrator enters it in the plugin. */
async function pairThroughPlugin(owner: Owner) {
  const started = await call(pairRoute, { body: { url: wp.url }, cookie: owner.cookie, headers: origin });
  expect(started.status).toBe(201);
  const outcome = await wp.cli<{ ok: boolean; code: string }>(
    "connect",
    `--service-url=${serviceUrl}`,
    `--code=${started.json.code}`,
    `--scopes=${ALL_SCOPES}`,
  );
  return { pairingId: started.json.site.id as string, code: started.json.code as string, outcome };
}

/** The wizard: poll the pairing's id, then confirm the site it shows. */
async function confirmThroughWizard(owner: Owner, pairingId: string) {
  const shown = await call(showSiteRoute, { cookie: owner.cookie, params: { id: pairingId } });
  expect(shown.json.site.status).toBe("redeemed");
  const confirmed = await call(confirmRoute, {
    method: "POST",
    cookie: owner.cookie,
    headers: origin,
    params: { id: shown.json.site.id },
  });
  expect(confirmed.status, confirmed.text).toBe(200);
  expect(confirmed.json.site.status).toBe("active");
  return confirmed.json.site.id as string;
}

const siteRow = async (owner: Owner, siteId: string) => (await findSiteForUser({ userId: owner.id, siteId }))!;

describe.each(STORES)("re-pairing a site on %s", (kind) => {
  useStore(kind);
  let owner: Owner;
  let siteId: string;
  /** The site the wizard lands on after re-pairing: where the owner looks for the history. */
  let repairedId: string;
  const sets: Record<"kept" | "drifting", { changeSetId: string; pageId: number }> = {} as never;

  const page = async (title: string) => {
    const client = siteClientFor(await siteRow(owner, siteId));
    const { data } = await client.post<{ id: number }>("/wp/v2/pages", { title, status: "publish" });
    return data.id;
  };
  const title = async (pageId: number) => {
    const [item] = await readItems(siteClientFor(await siteRow(owner, repairedId)), [`post:${pageId}`]);
    return (item!.state as { title: string }).title;
  };
  const undo = (changeSetId: string) =>
    call(undoRoute, { body: {}, cookie: owner.cookie, headers: origin, params: { id: repairedId, changeSetId } });

  beforeAll(async () => {
    owner = await newUser(`repair-${kind.length}`);
    const first = await pairThroughPlugin(owner);
    expect(first.outcome).toMatchObject({ ok: true });
    siteId = await confirmThroughWizard(owner, first.pairingId);
    expect(siteId).toBe(first.pairingId);

    const client = siteClientFor(await siteRow(owner, siteId));
    for (const key of ["kept", "drifting"] as const) {
      const pageId = await page(`Page ${key}`);
      const scope = { userId: owner.id, siteId, conversationId: randomUUID(), turnId: randomUUID(), target: "live" };
      const written = await writeThroughAgent({ scope: scope as never, client }, operationsByName.get("update_page")!, {
        id: pageId,
        title: `Agent's ${key}`,
      });
      sets[key] = { changeSetId: (written.data as { changeSetId: string }).changeSetId, pageId };
    }
    await insertConversation({ id: `c-${kind.length}`, userId: owner.id, siteId, title: "Before", now: now() });
  }, 120_000);

  it("re-pairs the same site: same id, new credentials, the old token dead", async () => {
    const before = await siteRow(owner, siteId);
    const again = await pairThroughPlugin(owner);
    expect(again.outcome).toMatchObject({ ok: true });
    expect(again.pairingId).not.toBe(siteId);
    repairedId = await confirmThroughWizard(owner, again.pairingId);
    expect(repairedId).toBe(siteId);

    const after = await siteRow(owner, siteId);
    expect(after.status).toBe("active");
    expect(after.credentials).not.toBe(before.credentials);
    expect(after.confirmedAt).toEqual(before.confirmedAt);
    await expect(siteClientFor(after).get("/sitewright/v1/info")).resolves.toMatchObject({ status: 200 });
    // The plugin keeps one connection: the old token no longer opens the site (and our copy was overwritten).
    await expect(siteClientFor(before).get("/sitewright/v1/info")).rejects.toMatchObject({
      siteStatus: 401,
      siteCode: "sitewright_bad_token",
    });
  }, 60_000);

  it("lists the change sets made before re-pairing", async () => {
    const listed = await call(listChangesRoute, { cookie: owner.cookie, params: { id: repairedId } });
    expect(listed.status).toBe(200);
    const ids = listed.json.changeSets.map((set: { id: string }) => set.id);
    expect(ids).toEqual(expect.arrayContaining([sets.kept.changeSetId, sets.drifting.changeSetId]));
  });

  it("undoes an earlier change set with the new credentials", async () => {
    expect(await title(sets.kept.pageId)).toBe("Agent's kept");
    const res = await undo(sets.kept.changeSetId);
    expect(res.status, res.text).toBe(200);
    expect(res.json.changeSet.status).toBe("undone");
    expect(await title(sets.kept.pageId)).toBe("Page kept");
  }, 60_000);

  it("still refuses to undo over a person's newer edit: 409 drifted, the edit kept", async () => {
    await humanEditPost(wp.wpPath, sets.drifting.pageId, { title: "Edited by Ana" });
    const res = await undo(sets.drifting.changeSetId);
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe("drifted");
    expect(await title(sets.drifting.pageId)).toBe("Edited by Ana");
  }, 60_000);

  it("keeps the site's conversations, and the chat can go on", async () => {
    const chat = await loadChatPage({ userId: owner.id, siteId: repairedId });
    expect(chat?.site).toMatchObject({ id: siteId, active: true });
    expect(chat?.conversations.map((c) => c.id)).toContain(`c-${kind.length}`);
  });

  it("leaves the site as it was when a re-pairing expires unused", async () => {
    const before = await siteRow(owner, siteId);
    const started = await call(pairRoute, { body: { url: wp.url }, cookie: owner.cookie, headers: origin });
    expect(await siteRow(owner, siteId)).toEqual(before);
    advanceClockForTests(PAIRING_TTL_MS + 1000);
    const late = await wp.cli<{ ok: boolean; code: string }>(
      "connect",
      `--service-url=${serviceUrl}`,
      `--code=${started.json.code}`,
      `--scopes=${ALL_SCOPES}`,
    );
    expect(late).toMatchObject({ ok: false, code: "code_expired" });
    expect(await siteRow(owner, siteId)).toEqual(before);
    resetClockForTests(); // the plugin checks our signature's time against its own clock
    await expect(siteClientFor(before).get("/sitewright/v1/info")).resolves.toMatchObject({ status: 200 });
  }, 60_000);
});
