/**
 * Sandbox mode over MCP (docs/mcp.md), with the official SDK's client over real HTTP, the real WordPress with our
 * plugin as the live site, real Podman sandboxes (DOCKER_HOST from scripts/setup/podman.sh, the sandbox image built)
 * and PostgreSQL: an external agent renames a published page in sandbox mode; the live page stays as it was, the
 * change set is a pending sandbox set whose audit names the client; the owner's Apply (the route the review page
 * calls) makes it live; the next sandbox write starts a new set.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { POST as applyRoute } from "@/app/sites/[id]/changes/[changeSetId]/apply/route";
import { POST as discardRoute } from "@/app/sites/[id]/changes/[changeSetId]/discard/route";
import { GET as showRoute } from "@/app/sites/[id]/changes/[changeSetId]/route";
import { readItem } from "@/lib/sites/items";
import { findSiteForUser, listChangeAudit } from "@/lib/db/queries";
import { useTestDatabase } from "@/lib/db/testing";
import { setSandboxManagerForTests } from "@/lib/sandbox";
import { createTestSandboxes, type TestSandboxes } from "@/lib/sandbox/testing";
import { siteClientFor } from "@/lib/sites/sites";
import { loadChatPage } from "@/lib/workflows/chat-turn";
import { setVerificationDepsForTests } from "@/lib/workflows/verify-change-set";
import { newUser } from "@/test/accounts";
import { pairAgentSite, startAgentSite, type AgentTestSite } from "@/test/agent-site";
import { call } from "@/test/http";
import { APP, connectMcpClient, type McpTestServer, startMcpTestServer, structured } from "@/test/mcp-server";
import { setMcpDepsForTests } from "./tools";

// A whole OAuth flow, the sandbox copy of the site and several signed round trips per test: well over 30 s on a
// loaded two-core machine.
vi.setConfig({ testTimeout: 120_000 });

useTestDatabase();

let wp: AgentTestSite;
let t: TestSandboxes;
let owner: { cookie: string; id: string };
let siteId: string;
let server: McpTestServer;
let publishedId: number;

beforeAll(async () => {
  wp = await startAgentSite();
  owner = await newUser("mcp-sandbox");
  siteId = await pairAgentSite(wp, owner.id);
  const { data } = await wp.admin.post<{ id: number }>("/wp/v2/pages", {
    title: "Opening hours",
    content: "<!-- wp:paragraph --><p>Nine to five.</p><!-- /wp:paragraph -->",
    status: "publish",
  });
  publishedId = data.id;
  const live = siteClientFor((await findSiteForUser({ userId: owner.id, siteId }))!);
  t = createTestSandboxes(
    { poolSize: 1, appUrl: APP },
    { siteSource: async () => ({ client: live, site: { id: siteId, url: wp.local.url } }) },
  );
  await t.manager.image();
  await t.manager.fillPool();
  await setSandboxManagerForTests(t.manager);
  setMcpDepsForTests({ sandboxesEnabled: () => true });
  setVerificationDepsForTests({ delays: [0] });
  server = await startMcpTestServer();
}, 180_000);

afterAll(async () => {
  setMcpDepsForTests(undefined);
  setVerificationDepsForTests(undefined);
  server?.close();
  await setSandboxManagerForTests(undefined);
  await t?.cleanup();
  await wp?.local.stop();
});

const ownerCall = (route: typeof applyRoute, changeSetId: string, body: Record<string, unknown> = {}) =>
  call(route, { body, cookie: owner.cookie, headers: { origin: APP }, params: { id: siteId, changeSetId } });

/** What a read answered, as the agent reads it (the site's data wrapped as untrusted). */
const siteData = (result: Record<string, unknown>) =>
  JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as { mode?: string; site_data: any };

describe("sandbox mode over MCP", () => {
  it("rehearses a rename in the connection's sandbox, leaves the live page alone until the owner applies it", async () => {
    const { client } = await connect();
    const livePage = await readItem(wp.admin, `post:${publishedId}`);

    // The agent finds the page in the copy and renames it there.
    const listed = siteData(
      await client.callTool({ name: "list_pages", arguments: { siteId, mode: "sandbox", search: "Opening hours" } }),
    );
    expect(listed.mode).toBe("sandbox");
    const page = (listed.site_data.items as Array<{ id: number; title: string }>).find(
      (item) => item.title === "Opening hours",
    )!;
    expect(page).toBeDefined();
    const rename = structured(
      await client.callTool({
        name: "update_page",
        arguments: { siteId, mode: "sandbox", id: page.id, title: "Opening times" },
      }),
    );
    expect(rename).toMatchObject({ status: "pending", mode: "sandbox" });
    expect(rename.reviewUrl).toBe(`${APP}/sites/${siteId}/review/${rename.changeSetId}`);
    expect(rename.message).toMatch(/live site is unchanged/);

    // Nothing reached the live site; the copy has the new title.
    expect(await readItem(wp.admin, `post:${publishedId}`)).toEqual(livePage);
    const inSandbox = siteData(
      await client.callTool({ name: "read_page", arguments: { siteId, mode: "sandbox", id: page.id } }),
    );
    expect(JSON.stringify(inSandbox.site_data)).toContain("Opening times");
    const onLive = siteData(await client.callTool({ name: "read_page", arguments: { siteId, id: publishedId } }));
    expect(JSON.stringify(onLive.site_data)).toContain("Opening hours");
    expect(JSON.stringify(onLive.site_data)).not.toContain("Opening times");

    // A second sandbox write joins the same set; the owner sees one pending rehearsal, attributed to the client.
    const reworded = structured(
      await client.callTool({
        name: "update_page",
        arguments: {
          siteId,
          mode: "sandbox",
          id: page.id,
          content: "<!-- wp:paragraph --><p>Eight to six.</p><!-- /wp:paragraph -->",
        },
      }),
    );
    expect(reworded.changeSetId).toBe(rename.changeSetId);
    const shown = await ownerCall(showRoute, rename.changeSetId);
    expect(shown.json.changeSet).toMatchObject({ target: "sandbox", status: "pending" });
    expect(shown.json.changeSet.sandboxId).toBe(rename.sandboxId);
    expect(shown.json.changeSet.items).toHaveLength(2);
    const audit = await listChangeAudit({ changeSetId: rename.changeSetId });
    expect(audit.filter((row) => row.detail?.includes('MCP client "Claude (sandbox test)"'))).toHaveLength(2);
    const state = structured(
      await client.callTool({ name: "get_change_set", arguments: { siteId, changeSetId: rename.changeSetId } }),
    );
    expect(state).toMatchObject({ target: "sandbox", status: "pending" });
    // The connection's rehearsal conversation is not a chat of the owner's.
    const chat = await loadChatPage({ userId: owner.id, siteId });
    expect(chat?.conversations.some((c) => c.id.startsWith("mcp:"))).toBe(false);

    // The owner's Apply (what the review page posts) makes it live.
    const applied = await ownerCall(applyRoute, rename.changeSetId);
    expect(applied.status).toBe(200);
    expect(applied.json.changeSet).toMatchObject({ target: "live", status: "applied" });
    const nowLive = await readItem(wp.admin, `post:${publishedId}`);
    expect(nowLive.title).toBe("Opening times");
    expect(JSON.stringify(nowLive)).toContain("Eight to six.");
    const after = structured(
      await client.callTool({ name: "get_change_set", arguments: { siteId, changeSetId: rename.changeSetId } }),
    );
    expect(after).toMatchObject({ target: "sandbox", status: "applied" });

    // The next sandbox write starts a new set, in the same sandbox; discarding it leaves the live page alone.
    const next = structured(
      await client.callTool({
        name: "update_page",
        arguments: { siteId, mode: "sandbox", id: page.id, title: "Hours" },
      }),
    );
    expect(next).toMatchObject({ status: "pending", mode: "sandbox", sandboxId: rename.sandboxId });
    expect(next.changeSetId).not.toBe(rename.changeSetId);
    expect((await ownerCall(discardRoute, next.changeSetId)).status).toBe(200);
    expect((await readItem(wp.admin, `post:${publishedId}`)).title).toBe("Opening times");
    await client.close();
  });
});

function connect() {
  return connectMcpClient({ server, name: "Claude (sandbox test)", access: "propose", owner, siteId });
}
