/**
 * The real provider path: `@ai-sdk/openai`'s Chat Completions model, configured only through OPENAI_API_KEY,
 * OPENAI_BASE_URL and AGENT_MODEL, talking to a local server that streams scripted tool calls, while the agent
 * edits a real WordPress with our plugin.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST } from "@/app/chat/route";
import { useTestDatabase } from "@/lib/db/testing";
import { resetEnvForTests } from "@/lib/env";
import { newUser } from "@/test/accounts";
import { call } from "@/test/http";
import { startOpenAIScriptedServer, toolMessages, type ScriptedServer } from "@/test/openai-scripted-server";
import { resetBreakersForTests } from "./breaker";
import { setAgentModelForTests } from "./model";
import { insertSiteRow, parseUiStream, startAgentSite, streamText, type AgentTestSite } from "@/test/agent-site";
import { UNTRUSTED_NOTICE } from "./untrusted";

useTestDatabase();

let wp: AgentTestSite;
let server: ScriptedServer;
let user: { cookie: string; id: string };
let siteId: string;
let pageId: number;

beforeAll(async () => {
  wp = await startAgentSite();
  user = await newUser("provider");
  siteId = await insertSiteRow({
    userId: user.id,
    url: wp.local.url,
    token: wp.token,
    secret: wp.secret,
    info: wp.info,
  });
  pageId = (await wp.admin.post<{ id: number }>("/wp/v2/pages", { title: "Opening hours", status: "draft" })).data.id;
  server = await startOpenAIScriptedServer(
    [
      { toolCalls: [{ name: "list_pages", arguments: { search: "Opening hours" } }] },
      (request) => {
        const listed = toolMessages(request).at(-1)!.content as {
          site_data: { data: { items: Array<{ id: number }> } };
        };
        return {
          toolCalls: [
            {
              name: "update_page",
              arguments: { id: listed.site_data.data.items[0]!.id, title: "Opening hours (summer)" },
            },
          ],
        };
      },
      { text: "I renamed the page to “Opening hours (summer)”." },
    ],
    { apiKey: "sk-test-scripted" },
  );
  setAgentModelForTests(undefined);
  resetBreakersForTests();
  resetEnvForTests({
    OPENAI_API_KEY: "sk-test-scripted",
    OPENAI_BASE_URL: server.baseURL,
    AGENT_MODEL: "scripted-model",
  });
});

afterAll(async () => {
  resetEnvForTests({ OPENAI_API_KEY: "", OPENAI_BASE_URL: undefined, AGENT_MODEL: undefined });
  await server?.close();
  await wp?.local.stop();
});

describe("the agent through an OpenAI-compatible endpoint", () => {
  it("edits a page title on the real WordPress, verified by reading the page back", async () => {
    const res = await call(POST, {
      body: { siteId, message: "Rename Opening hours to Opening hours (summer)" },
      cookie: user.cookie,
      path: "/chat",
      headers: { origin: "http://localhost:3000" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const chunks = parseUiStream(res.text);
    expect(streamText(chunks)).toBe("I renamed the page to “Opening hours (summer)”.");

    const page = (await wp.admin.get<{ title: { raw: string } }>(`/wp/v2/pages/${pageId}`, { context: "edit" })).data;
    expect(page.title.raw).toBe("Opening hours (summer)");

    // What the provider saw: the configured model and key, our tools, and site data labelled as untrusted.
    expect(server.requests).toHaveLength(3);
    expect(server.requests[0]!.authorization).toBe("Bearer sk-test-scripted");
    expect(server.requests[0]!.body).toMatchObject({ model: "scripted-model", stream: true });
    expect(server.requests[0]!.body.tools!.map((t) => t.function.name)).toContain("update_page");
    // Publishing and trashing are offered by default: each waits for the owner's click.
    expect(server.requests[0]!.body.tools!.map((t) => t.function.name)).toContain("trash_page");
    const results = toolMessages(server.requests[2]!.body);
    expect(results.map((r) => (r.content as { untrusted_notice: string }).untrusted_notice)).toEqual([
      UNTRUSTED_NOTICE,
      UNTRUSTED_NOTICE,
    ]);
    expect(results[1]!.content).toMatchObject({
      site_data: { ok: true, before: { title: "Opening hours" }, after: { title: "Opening hours (summer)" } },
    });
  });
});
