/**
 * One rule for every door (docs/change-sets.md), on the real WordPress with our plugin: the plugin says where
 * visitors would see each planned item, and the chat (scripted model), an MCP client (the official SDK) and a bulk
 * job all answer the same way. A caption change on an image a published page shows through a classic [gallery], a
 * description change on an image whose attachment page is public, a category only a classic menu shows, and a job
 * over those images wait for the owner's click and name the places; a draft's image and a term nobody shows are written at once; an image planned unseen
 * that a person puts in a published page before the write waits too.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { POST as chatRoute } from "@/app/chat/route";
import { POST as approveRoute } from "@/app/sites/[id]/changes/[changeSetId]/approve/route";
import { getChangeSetItems, listChangeAudit } from "@/lib/db/queries";
import { useTestDatabase } from "@/lib/db/testing";
import { setMcpDepsForTests } from "@/lib/mcp/tools";
import { readItem } from "@/lib/sites/items";
import { siteClientFor } from "@/lib/sites/sites";
import type { SiteClient } from "@/lib/sites/types";
import { setChatDepsForTests } from "@/lib/workflows/chat-turn";
import { kickJobRunner, setJobDepsForTests, showJobForOwner, startBulkJob } from "@/lib/workflows/bulk-job";
import { setVerificationDepsForTests } from "@/lib/workflows/verify-change-set";
import { newUser } from "@/test/accounts";
import { type AgentTestSite, pairAgentSite, parseUiStream, startAgentSite } from "@/test/agent-site";
import { call } from "@/test/http";
import { addLibraryFile, solidJpeg } from "@/test/media-library";
import { APP, connectMcpClient, type McpTestServer, startMcpTestServer, structured } from "@/test/mcp-server";
import { runAsAdmin } from "@/test/wordpress";
import { setAgentModelForTests } from "./model";
import { scriptedModel } from "./testing/scripted-model";

// Real WordPress, real PostgreSQL, several doors: minutes on a loaded two-core machine.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 240_000 });

useTestDatabase();

let wp: AgentTestSite;
let owner: { cookie: string; id: string };
let siteId: string;
let server: McpTestServer;
/** Attached to a draft, so its attachment page is not public; a published page shows it in a [gallery]. */
let galleryImage: number;
/** Attached to nothing: on WordPress 6.1 its attachment page is public. */
let publicPageImage: number;
/** Attached to a draft and used nowhere: no visitor sees it. */
let draftImage: number;
let galleryPage: number;

const php = <T>(code: string, args: unknown = null) => runAsAdmin<T>(wp.local.wpPath, code, args);

async function image(title: string) {
  return addLibraryFile(wp.local.wpPath, {
    name: `${title.toLowerCase().replaceAll(" ", "-")}.jpg`,
    bytes: await solidJpeg(40, 30, "#c08040"),
    mime: "image/jpeg",
    title,
    sizes: false,
  });
}

const attachTo = (imageId: number, postId: number) =>
  php("wp_update_post(array('ID' => (int) $args[0], 'post_parent' => (int) $args[1])); echo 1;", [imageId, postId]);

const insertPost = (type: string, status: string, title: string, content = "") =>
  php<number>(
    "echo json_encode(wp_insert_post(array('post_type' => $args[0], 'post_status' => $args[1], 'post_title' => $args[2], 'post_content' => $args[3])));",
    [type, status, title, content],
  );

beforeAll(async () => {
  wp = await startAgentSite();
  owner = await newUser("one-rule");
  siteId = await pairAgentSite(wp, owner.id);
  const draft = await insertPost("post", "draft", "Notes for later");
  galleryImage = await image("Harbour at dawn");
  publicPageImage = await image("Ferry landing");
  draftImage = await image("Unused sketch");
  await attachTo(galleryImage, draft);
  await attachTo(draftImage, draft);
  galleryPage = await insertPost("page", "publish", "Our harbour", `[gallery ids="${galleryImage}"]`);
  setVerificationDepsForTests({ delays: [0] });
  server = await startMcpTestServer();
});

afterAll(async () => {
  setVerificationDepsForTests(undefined);
  setMcpDepsForTests(undefined);
  setChatDepsForTests(undefined);
  setJobDepsForTests(undefined);
  setAgentModelForTests(undefined);
  server?.close();
  await wp?.local.stop();
});

beforeEach(() => setMcpDepsForTests(undefined));

const approve = (changeSetId: string) =>
  call(approveRoute as Parameters<typeof call>[0], {
    method: "POST",
    headers: { origin: APP },
    cookie: owner.cookie,
    params: { id: siteId, changeSetId },
  });

const mcp = () => connectMcpClient({ server, name: "Agent (one rule)", access: "propose", owner, siteId });

describe("through MCP", () => {
  it("makes a caption change on an image in a published [gallery] wait for Approve, naming the gallery", async () => {
    const { client } = await mcp();
    const before = await readItem(wp.admin, `post:${galleryImage}`);
    const answer = structured(
      await client.callTool({
        name: "update_media",
        arguments: { siteId, id: galleryImage, caption: 'See <a href="https://example.com">here</a>' },
      }),
    );
    expect(answer.status).toBe("pending");
    expect(answer.reviewUrl).toBe(`${APP}/sites/${siteId}/review/${answer.changeSetId}`);
    expect(answer.visibleIn[0].places.join(" ")).toMatch(/\[gallery\]/);
    expect(answer.visibleIn[0].places.join(" ")).toContain("Our harbour");
    expect(answer.message).toMatch(/Visitors would see this in: .*\[gallery\]/);
    expect((await readItem(wp.admin, `post:${galleryImage}`)).version).toBe(before.version);
    const [item] = await getChangeSetItems(answer.changeSetId);
    expect(item).toMatchObject({ status: "pending", visible: true });
    expect(item!.places?.map((place) => place.kind)).toContain("gallery");

    expect((await approve(answer.changeSetId)).status).toBe(200);
    expect((await readItem(wp.admin, `post:${galleryImage}`)).state?.excerpt).toContain("example.com");
  });

  it("writes at once what no visitor sees: a draft's image, and a category nothing shows", async () => {
    const { client } = await mcp();
    const caption = structured(
      await client.callTool({ name: "update_media", arguments: { siteId, id: draftImage, caption: "A sketch." } }),
    );
    expect(caption.status).toBe("applied");
    expect((await readItem(wp.admin, `post:${draftImage}`)).state?.excerpt).toBe("A sketch.");

    const term = await php<number>("echo json_encode(wp_insert_term('Quiet corner', 'category')['term_id']);");
    const renamed = structured(
      await client.callTool({
        name: "save_term",
        arguments: { siteId, taxonomy: "category", id: term, name: "Calm corner" },
      }),
    );
    expect(renamed.status).toBe("applied");
    expect((await readItem(wp.admin, `term:${term}`)).title).toBe("Calm corner");
  });

  it("makes renaming a category that only a classic menu shows wait, naming the menu", async () => {
    const term = await php<number>(
      "$term = wp_insert_term('Seasonal', 'category')['term_id']; $menu = wp_create_nav_menu('Main'); wp_update_nav_menu_item($menu, 0, array('menu-item-type' => 'taxonomy', 'menu-item-object' => 'category', 'menu-item-object-id' => $term, 'menu-item-status' => 'publish')); set_theme_mod('nav_menu_locations', array('primary' => $menu)); echo json_encode($term);",
    );
    const { client } = await mcp();
    const answer = structured(
      await client.callTool({
        name: "save_term",
        arguments: { siteId, taxonomy: "category", id: term, name: "Seasonal specials" },
      }),
    );
    expect(answer.status).toBe("pending");
    expect(answer.visibleIn[0].places.join(" ")).toContain("Main");
    expect((await readItem(wp.admin, `term:${term}`)).title).toBe("Seasonal");
  });

  it("holds an image planned unseen that a person put in a published page before the write", async () => {
    const late = await image("Late arrival");
    const draft = await insertPost("post", "draft", "Draft holding the late image");
    await attachTo(late, draft);
    // A person publishes a gallery with the image between the plan and the write (the write's own request).
    const publishFirst = (live: SiteClient): SiteClient => ({
      ...live,
      get: (route, query) => live.get(route, query),
      put: (route, body) => live.put(route, body),
      delete: (route, query) => live.delete(route, query),
      async post(route, body) {
        if (route === "/sitewright/v1/items" && (body as { requireInvisible?: boolean }).requireInvisible)
          await insertPost("page", "publish", "Late gallery", `[gallery include="${late}"]`);
        return live.post(route, body);
      },
    });
    setMcpDepsForTests({ siteClient: (site) => publishFirst(siteClientFor(site)) });
    const { client } = await mcp();
    const before = await readItem(wp.admin, `post:${late}`);
    const answer = structured(
      await client.callTool({ name: "update_media", arguments: { siteId, id: late, caption: "Just in time." } }),
    );
    expect(answer.status).toBe("pending");
    expect(answer.visibleIn[0].places.join(" ")).toContain("Late gallery");
    expect((await readItem(wp.admin, `post:${late}`)).version).toBe(before.version);
    const audit = await listChangeAudit({ changeSetId: answer.changeSetId });
    expect(audit.map((row) => row.outcome)).toEqual(["pending"]);
  });
});

describe("through the chat", () => {
  it("makes a description change on an image with a public attachment page wait, naming its attachment page", async () => {
    setChatDepsForTests({
      siteClient: (site) => siteClientFor(site),
      limits: () => ({ maxSteps: 6, maxToolCalls: 6, maxTokens: 100_000, timeoutMs: 60_000 }),
    });
    setAgentModelForTests(
      scriptedModel([
        { toolCalls: [{ name: "update_media", input: { id: publicPageImage, description: "Boats at noon." } }] },
        { text: "Waiting for your approval." },
      ]),
    );
    const before = await readItem(wp.admin, `post:${publicPageImage}`);
    const res = await call(chatRoute, {
      body: { siteId, message: "Describe the ferry photo" },
      cookie: owner.cookie,
      path: "/chat",
      headers: { origin: APP },
    });
    expect(res.status).toBe(200);
    const chunks = parseUiStream(res.text);
    expect(chunks.some((chunk) => chunk.type === "tool-approval-request")).toBe(true);
    const change = chunks.filter((chunk) => chunk.type === "data-change").at(-1)!.data as {
      status: string;
      items: Array<{ status: string; places?: Array<{ kind: string; label: string }> }>;
    };
    expect(change.status).toBe("pending");
    expect(change.items[0]!.places?.map((place) => place.kind)).toContain("attachment_page");
    expect((await readItem(wp.admin, `post:${publicPageImage}`)).version).toBe(before.version);
  });
});

describe("through a bulk job", () => {
  it("queues each visible image with its places and writes the draft's image at once", async () => {
    setJobDepsForTests({ siteClient: () => wp.clientFor(wp.local.url) });
    const versions = await Promise.all(
      [galleryImage, publicPageImage].map(async (id) => (await readItem(wp.admin, `post:${id}`)).version),
    );
    const started = await startBulkJob({
      userId: owner.id,
      siteId,
      conversationId: crypto.randomUUID(),
      spec: {
        description: "the harbour photos",
        selection: { type: "media", status: "any" },
        change: { kind: "set", field: "caption", template: "Photo: {title}" },
      },
      client: wp.admin,
    });
    await kickJobRunner();
    const job = await showJobForOwner({ userId: owner.id, siteId, jobId: started.id });
    const items = await getChangeSetItems(job.changeSetId);
    const byRef = new Map(items.map((item) => [item.ref, item]));
    expect(byRef.get(`post:${galleryImage}`)).toMatchObject({ status: "pending", visible: true });
    expect(byRef.get(`post:${galleryImage}`)!.places?.map((place) => place.kind)).toContain("gallery");
    expect(byRef.get(`post:${publicPageImage}`)).toMatchObject({ status: "pending", visible: true });
    expect(byRef.get(`post:${publicPageImage}`)!.places?.map((place) => place.kind)).toContain("attachment_page");
    expect(byRef.get(`post:${draftImage}`)).toMatchObject({ status: "applied", visible: false });
    const after = await Promise.all(
      [galleryImage, publicPageImage].map(async (id) => (await readItem(wp.admin, `post:${id}`)).version),
    );
    expect(after).toEqual(versions);
    expect(job.status).toBe("ready");
    expect(galleryPage).toBeGreaterThan(0);
  });
});
