/**
 * Undo on the real WordPress with our plugin (scripts/site-local) and real PostgreSQL: every write kind the agent
 * makes, undone through `POST /sites/:id/changes/:changeSetId/undo`, reads back exactly as before the turn; a
 * person's edit in between makes undo refuse (`409 drifted`, nothing changed, the person's text kept).
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as showRoute } from "@/app/sites/[id]/changes/[changeSetId]/route";
import { POST as approveRoute } from "@/app/sites/[id]/changes/[changeSetId]/approve/route";
import { POST as applyRoute } from "@/app/sites/[id]/changes/[changeSetId]/apply/route";
import { POST as undoRoute } from "@/app/sites/[id]/changes/[changeSetId]/undo/route";
import { GET as listRoute } from "@/app/sites/[id]/changes/route";
import { operationsByName } from "@/lib/agent/operations";
import { insertSiteRow, startAgentSite, type AgentTestSite } from "@/test/agent-site";
import { findSiteForUser, listChangeAudit } from "@/lib/db/queries";
import { useTestDatabase } from "@/lib/db/testing";
import { siteClientFor } from "@/lib/sites/sites";
import type { SiteClient } from "@/lib/sites/types";
import { newUser } from "@/test/accounts";
import { call } from "@/test/http";
import { humanEditPost, writeThroughAgent } from "@/test/changes";
import { readItems } from "@/lib/sites/items";
import { recordPendingPlan, type TurnScope } from "./change-sets";

useTestDatabase();

let wp: AgentTestSite;
let owner: { cookie: string; id: string };
let siteId: string;
let client: SiteClient;
const origin = { origin: "http://localhost:3000" };

beforeAll(async () => {
  wp = await startAgentSite();
  owner = await newUser("undo");
  siteId = await insertSiteRow({
    userId: owner.id,
    url: wp.local.url,
    token: wp.token,
    secret: wp.secret,
    info: wp.info,
  });
  client = siteClientFor((await findSiteForUser({ userId: owner.id, siteId }))!);
}, 120_000);

afterAll(async () => {
  await wp?.local.stop();
});

const op = (name: string) => operationsByName.get(name)!;
const operations = {
  update_page: op("update_page"),
  replace_block: op("replace_block"),
  insert_block: op("insert_block"),
  set_site_identity: op("set_site_identity"),
  update_custom_css: op("update_custom_css"),
  create_draft: op("create_draft"),
  trash_page: op("trash_page"),
  publish_page: op("publish_page"),
  change_menu: op("change_menu"),
};

const turn = (): TurnScope => ({
  userId: owner.id,
  siteId,
  conversationId: randomUUID(),
  turnId: randomUUID(),
  target: "live",
});

async function page(
  title: string,
  status = "publish",
  content = "<!-- wp:paragraph --><p>Opening hours: 8–18</p><!-- /wp:paragraph -->",
) {
  const { data } = await wp.admin.post<{ id: number }>("/wp/v2/pages", { title, content, status, excerpt: "Short" });
  return data.id;
}

const undo = (changeSetId: string, body: Record<string, unknown> = {}, cookie = owner.cookie) =>
  call(undoRoute, { body, cookie, headers: origin, params: { id: siteId, changeSetId } });

const states = async (refs: string[]) =>
  Object.fromEntries((await readItems(client, refs)).map((item) => [item.ref, item.state]));

describe("undo of a whole turn on the real WordPress", () => {
  it("puts every kind of write back exactly: edits, blocks, settings, CSS, creations, trashings, publishing", async () => {
    const edited = await page("About us");
    const blocks = await page(
      "Menu",
      "draft",
      "<!-- wp:heading --><h2>Breads</h2><!-- /wp:heading -->\n\n<!-- wp:paragraph --><p>Rye</p><!-- /wp:paragraph -->",
    );
    const trashed = await page("Old offer");
    const published = await page("Launch", "draft");
    const { stylesheet } = (await client.get<{ stylesheet: string }>("/sitewright/v1/custom-css")).data;
    const refs = [
      `post:${edited}`,
      `post:${blocks}`,
      `post:${trashed}`,
      `post:${published}`,
      "option:blogname",
      "option:blogdescription",
      `custom_css:${stylesheet}`,
    ];
    const before = await states(refs);

    const scope = turn();
    const context = { scope, client };
    await writeThroughAgent(context, operations.update_page, {
      id: edited,
      title: "About our bakery",
      content: "<!-- wp:paragraph --><p>Since 1952</p><!-- /wp:paragraph -->",
      excerpt: "Bakers",
    });
    await writeThroughAgent(context, operations.replace_block, {
      id: blocks,
      position: "2",
      markup: "<!-- wp:paragraph --><p>Sourdough</p><!-- /wp:paragraph -->",
    });
    await writeThroughAgent(context, operations.insert_block, {
      id: blocks,
      position: "end",
      markup: "<!-- wp:paragraph --><p>Baguette</p><!-- /wp:paragraph -->",
    });
    await writeThroughAgent(context, operations.set_site_identity, {
      title: "The Corner Bakery",
      tagline: "Fresh daily",
    });
    await writeThroughAgent(context, operations.update_custom_css, { css: ".site-title { color: #a0522d; }" });
    const created = await writeThroughAgent(context, operations.create_draft, { title: "Catering", content: "Ask us" });
    await writeThroughAgent(context, operations.trash_page, { id: trashed });
    await writeThroughAgent(context, operations.publish_page, { id: published });
    const createdId = (created.data as { id: number }).id;
    const changeSetId = (created.data as { changeSetId: string }).changeSetId;

    const changed = await states([...refs, `post:${createdId}`]);
    expect(changed[`post:${edited}`]).toMatchObject({ title: "About our bakery", excerpt: "Bakers" });
    expect(changed[`post:${blocks}`]!.content).toContain("Sourdough");
    expect(changed[`post:${trashed}`]).toMatchObject({ status: "trash" });
    expect(changed[`post:${published}`]).toMatchObject({ status: "publish" });
    expect(changed["option:blogname"]).toEqual({ value: "The Corner Bakery" });
    expect(changed[`post:${createdId}`]).toMatchObject({ title: "Catering", status: "draft" });

    const shown = await call(showRoute, { cookie: owner.cookie, params: { id: siteId, changeSetId } });
    expect(shown.json.changeSet).toMatchObject({ status: "applied", target: "live", siteId });
    expect(shown.json.changeSet.items).toHaveLength(9);

    const res = await undo(changeSetId);
    expect(res.status).toBe(200);
    expect(res.json.changeSet.status).toBe("undone");
    expect(res.json.changeSet.items.every((i: { status: string }) => i.status === "undone")).toBe(true);

    // Field by field, every item reads back as before the turn; the creation is gone.
    const after = await states([...refs, `post:${createdId}`]);
    for (const ref of refs) expect(after[ref], ref).toEqual(before[ref]);
    expect(after[`post:${createdId}`]).toBeNull();
    expect(
      (await listChangeAudit({ changeSetId }))
        .filter((a) => a.action !== "verify")
        .map((a) => [a.action, a.outcome, a.userId])
        .at(-1),
    ).toEqual(["undo", "ok", owner.id]);

    // Undone already: nothing left to undo.
    expect((await undo(changeSetId)).json.error.code).toBe("not_applicable");
  }, 60_000);

  it("puts a classic menu back exactly after adds, renames, moves and removals", async () => {
    const { data: menu } = await wp.admin.post<{ id: number }>("/wp/v2/menus", { name: `Footer ${Date.now()}` });
    const about = await page("About the bakery");
    const item = async (body: Record<string, unknown>) =>
      (await wp.admin.post<{ id: number }>("/wp/v2/menu-items", { menus: menu.id, status: "publish", ...body })).data
        .id;
    const home = await item({ title: "Home", url: "https://example.com/", menu_order: 1 });
    const aboutItem = await item({
      title: "About",
      type: "post_type",
      object: "page",
      object_id: about,
      menu_order: 2,
    });
    const team = await item({ title: "Team", url: "https://example.com/team", parent: aboutItem, menu_order: 3 });
    const before = await states([`menu:${menu.id}`]);
    expect((before[`menu:${menu.id}`]!.items as Array<{ title: string }>).map((i) => i.title)).toEqual([
      "Home",
      "About",
      "Team",
    ]);

    const result = await writeThroughAgent({ scope: turn(), client }, operations.change_menu, {
      menuId: menu.id,
      changes: [
        { action: "add", title: "Shop", url: "https://example.com/shop", order: 1 },
        { action: "rename", itemId: home, title: "Start" },
        { action: "move", itemId: team, parent: 0 },
        { action: "remove", itemId: aboutItem },
      ],
    });
    const changed = (await states([`menu:${menu.id}`]))[`menu:${menu.id}`]!.items as Array<{
      title: string;
      parent: number;
    }>;
    expect(changed.map((i) => [i.title, i.parent])).toEqual([
      ["Shop", 0],
      ["Start", 0],
      ["Team", 0],
    ]);

    const res = await undo((result.data as { changeSetId: string }).changeSetId);
    expect(res.status).toBe(200);
    expect(await states([`menu:${menu.id}`])).toEqual(before);
  }, 60_000);

  it("refuses to approve over a person's edit, naming the page as the person renamed it", async () => {
    const id = await page("Hours");
    const plan = await operations.update_page.plan!(
      client,
      operations.update_page.input.parse({ id, title: "Hours of the shop" }),
    );
    const { changeSetId } = await recordPendingPlan(turn(), "call_pending_rename", plan.items);
    await humanEditPost(wp.local.wpPath, id, { title: "Opening times (Ana)" });

    const res = await call(approveRoute, {
      body: {},
      cookie: owner.cookie,
      headers: origin,
      params: { id: siteId, changeSetId },
    });
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe("drifted");
    expect(res.json.error.message).toContain("“Opening times (Ana)”");
    expect(res.json.error.details.items).toEqual([expect.objectContaining({ title: "Opening times (Ana)" })]);
  }, 60_000);

  it("names a drifted item by the title Sitewright's edit gave it when the person kept that title", async () => {
    const id = await page("Team");
    const scope = turn();
    const written = await writeThroughAgent({ scope, client }, operations.update_page, { id, title: "Our team" });
    await humanEditPost(wp.local.wpPath, id, { content: "Ana, Ben and Cleo" });

    const res = await undo((written.data as { changeSetId: string }).changeSetId);
    expect(res.json.error.code).toBe("drifted");
    expect(res.json.error.message).toContain("“Our team”");
    expect(res.json.error.details.items).toEqual([expect.objectContaining({ title: "Our team" })]);
  }, 60_000);

  it("refuses with 409 drifted when a person edited an item since, changes nothing, and keeps the person's text", async () => {
    const a = await page("Contact");
    const b = await page("Prices");
    const scope = turn();
    await writeThroughAgent({ scope, client }, operations.update_page, { id: a, title: "Contact us" });
    const second = await writeThroughAgent({ scope, client }, operations.update_page, { id: b, title: "Our prices" });
    const changeSetId = (second.data as { changeSetId: string }).changeSetId;

    await humanEditPost(wp.local.wpPath, b, { title: "Prices (edited by Ana)", content: "Ana's new price list" });

    const res = await undo(changeSetId);
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe("drifted");
    // Named as the site calls it now: the person renamed it after Sitewright's edit ("Prices" is two names old).
    expect(res.json.error.message).toContain("“Prices (edited by Ana)”");
    expect(res.json.error.message).not.toContain("“Prices”");
    expect(res.json.error.details.items).toEqual([
      {
        id: expect.any(String),
        title: "Prices (edited by Ana)",
        reason: expect.stringContaining("changed on the site"),
      },
    ]);
    // All or nothing: the other item keeps the agent's edit, the person's edit is intact.
    const now = await states([`post:${a}`, `post:${b}`]);
    expect(now[`post:${a}`]).toMatchObject({ title: "Contact us" });
    expect(now[`post:${b}`]).toMatchObject({ title: "Prices (edited by Ana)", content: "Ana's new price list" });
    const shown = await call(showRoute, { cookie: owner.cookie, params: { id: siteId, changeSetId } });
    expect(shown.json.changeSet.status).toBe("applied");
    expect((await listChangeAudit({ changeSetId })).at(-1)).toMatchObject({ action: "undo", outcome: "drifted" });

    // The item nobody touched can still be undone on its own.
    const itemA = shown.json.changeSet.items.find((i: { title: string }) => i.title === "Contact");
    const partial = await undo(changeSetId, { itemIds: [itemA.id] });
    expect(partial.status).toBe(200);
    expect(partial.json.changeSet.status).toBe("partially_undone");
    expect((await states([`post:${a}`]))[`post:${a}`]).toMatchObject({ title: "Contact" });
  }, 60_000);

  it("lists a site's change sets newest first, answers 404 to anyone else, and 409 to apply on a live set", async () => {
    const id = await page("Hours", "draft");
    const first = await writeThroughAgent({ scope: turn(), client }, operations.update_page, { id, title: "Hours 1" });
    const second = await writeThroughAgent({ scope: turn(), client }, operations.update_page, { id, title: "Hours 2" });
    const ids = (await call(listRoute, { cookie: owner.cookie, params: { id: siteId } })).json.changeSets.map(
      (s: { id: string }) => s.id,
    );
    const [firstId, secondId] = [first, second].map((r) => (r.data as { changeSetId: string }).changeSetId);
    expect(ids.indexOf(secondId)).toBeLessThan(ids.indexOf(firstId));

    const stranger = await newUser("stranger");
    expect((await call(listRoute, { cookie: stranger.cookie, params: { id: siteId } })).status).toBe(404);
    expect(
      (await call(showRoute, { cookie: stranger.cookie, params: { id: siteId, changeSetId: secondId! } })).status,
    ).toBe(404);
    expect((await undo(secondId!, {}, stranger.cookie)).status).toBe(404);
    expect((await states([`post:${id}`]))[`post:${id}`]).toMatchObject({ title: "Hours 2" });

    const apply = await call(applyRoute, {
      body: {},
      cookie: owner.cookie,
      headers: origin,
      params: { id: siteId, changeSetId: secondId! },
    });
    expect(apply.status).toBe(409);
    expect(apply.json.error.code).toBe("not_applicable");
  }, 60_000);
});
