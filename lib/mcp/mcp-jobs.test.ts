/**
 * Bulk jobs over MCP (docs/mcp.md), with the official SDK client over real HTTP and the real WordPress with our
 * plugin: `start_bulk_job` starts a live job whose review link is the job's queue, refuses sandbox mode and (without
 * a model of Sitewright's own) text written per item; `add_image`, which needs the chat's files, is not offered.
 * Its own file: each client registers itself, and registrations are limited per minute and client address.
 */
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { useTestDatabase } from "@/lib/db/testing";
import { kickJobRunner } from "@/lib/workflows/bulk-job";
import { newUser } from "@/test/accounts";
import { type AgentTestSite, pairAgentSite, startAgentSite } from "@/test/agent-site";
import { APP, connectMcpClient, type McpTestServer, startMcpTestServer, structured } from "@/test/mcp-server";
import { runAsAdmin } from "@/test/wordpress";

// A whole OAuth flow and several signed round trips to the real site per test (each write also asks the site where
// visitors would see it): well over 30 s on a loaded two-core machine.
vi.setConfig({ testTimeout: 120_000 });

useTestDatabase();

let wp: AgentTestSite;
let owner: { cookie: string; id: string };
let siteId: string;
let server: McpTestServer;

beforeAll(async () => {
  wp = await startAgentSite();
  owner = await newUser("mcpjobs");
  siteId = await pairAgentSite(wp, owner.id);
  server = await startMcpTestServer();
}, 120_000);

afterAll(async () => {
  server?.close();
  await wp?.local.stop();
});

const page = (status: string, title: string) =>
  runAsAdmin<number>(
    wp.local.wpPath,
    "echo json_encode(wp_insert_post(array('post_type' => 'page', 'post_status' => $args[0], 'post_title' => $args[1], 'post_content' => '<p>Hello.</p>')));",
    [status, title],
  );
const excerpt = (id: number) =>
  runAsAdmin<string>(wp.local.wpPath, "echo json_encode(get_post((int) $args)->post_excerpt);", id);

it("starts a bulk job whose review link is the job's queue, and offers no add_image (it needs the chat's files)", async () => {
  const { client } = await connectMcpClient({ server, name: "Bulk agent", access: "propose", owner, siteId });
  const tools = (await client.listTools()).tools;
  expect(tools.map((tool) => tool.name)).not.toContain("add_image");
  const jobTool = tools.find((tool) => tool.name === "start_bulk_job");
  expect(jobTool?.inputSchema.required).toContain("siteId");
  expect(jobTool?.inputSchema.properties?.mode, "jobs run live only").toBeUndefined();
  const published = await page("publish", "Opening hours");
  const hidden = await client.callTool({
    name: "add_image",
    arguments: { siteId, type: "page", id: published, file: "https://example.com/a.jpg", alt: "A shop" },
  });
  expect(structured(hidden).error).toMatchObject({ code: "not_found" });

  const tag = `mcpjob${Date.now()}`;
  const shown = await page("publish", `${tag} publish`);
  const draft = await page("draft", `${tag} draft`);
  const spec = {
    description: "pages without an excerpt",
    selection: { type: "page", search: tag, status: "any", missing: "excerpt" },
    change: { kind: "set", field: "excerpt", template: "About {title}" },
  };
  for (const [args, code] of [
    [{ ...spec, mode: "sandbox" }, "job_unavailable"],
    [{ ...spec, change: { kind: "write", field: "excerpt", instruction: "Summarise." } }, "not_available"],
  ] as const) {
    const refused = await client.callTool({ name: "start_bulk_job", arguments: { siteId, ...args } });
    expect(structured(refused).error, JSON.stringify(refused.content)).toMatchObject({ code });
  }

  const started = structured(await client.callTool({ name: "start_bulk_job", arguments: { siteId, ...spec } }));
  expect(started).toMatchObject({ status: "planning", selection: { count: 2 } });
  expect(started.reviewUrl).toBe(`${APP}/sites/${siteId}/jobs/${started.jobId}/queue`);
  await kickJobRunner();
  const state = structured(
    await client.callTool({ name: "get_change_set", arguments: { siteId, changeSetId: started.changeSetId } }),
  );
  expect(state).toMatchObject({ reviewUrl: started.reviewUrl, job: { id: started.jobId, status: "ready" } });
  expect(state.items.map((item: { status: string }) => item.status).sort()).toEqual(["applied", "pending"]);
  expect(await excerpt(draft)).toBe(`About ${tag} draft`); // invisible: written as planned
  expect(await excerpt(shown)).toBe(""); // visible: waits in the queue for the owner's click
  await client.close();
});
