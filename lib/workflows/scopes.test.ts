/**
 * Permissions the owner changes in WordPress after pairing reach the chat without a new pairing: a request that
 * needs a scope the token lacks is answered with exactly how to grant it, and once the owner saves the wider
 * scopes the next request works. Real WordPress with our plugin, real PostgreSQL; the model is scripted.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { findSiteForUser } from "@/lib/db/queries";
import { useTestDatabase } from "@/lib/db/testing";
import { resetBreakersForTests } from "@/lib/agent/breaker";
import { setAgentModelForTests } from "@/lib/agent/model";
import { scriptedModel, type Script } from "@/lib/agent/testing/scripted-model";
import { howToGrant, scopeRefusal } from "@/lib/sites/permissions";
import { refreshSiteInfo, siteClientFor } from "@/lib/sites/sites";
import { loadChatPage, setChatDepsForTests } from "@/lib/workflows/chat-turn";
import { newUser } from "@/test/accounts";
import { type AgentTestSite, countingClient, pairAgentSite, startAgentSite } from "@/test/agent-site";
import { chatAs, outputs } from "@/test/chat";

useTestDatabase();

const NARROW = "site:read,content:read,content:write";
let wp: AgentTestSite;
let tokenId: number;
let user: { cookie: string; id: string };
let siteId: string;

beforeAll(async () => {
  wp = await startAgentSite(NARROW);
  const { tokens } = await wp.local.cli<{ tokens: Array<{ id: number; last_four: string }> }>("status");
  tokenId = tokens.find((t) => wp.token.endsWith(t.last_four))!.id;
  user = await newUser("scopes");
  siteId = await pairAgentSite(wp, user.id);
});

afterAll(async () => {
  setChatDepsForTests(undefined);
  setAgentModelForTests(undefined);
  await wp?.local.stop();
});

const limits = { limits: () => ({ maxSteps: 6, maxToolCalls: 6, maxTokens: 100_000, timeoutMs: 20_000 }) };

beforeEach(() => {
  resetBreakersForTests();
  setChatDepsForTests(limits);
});

/** "Save permissions" in WordPress, as the plugin's admin screen does it: the same token, new scopes. */
const saveScopes = (scopes: string) => wp.local.cli("set-scopes", `--id=${tokenId}`, `--scopes=${scopes}`);

const say = chatAs(() => ({ siteId, cookie: user.cookie }));

/** One message with the model scripted; what the turn streamed and each tool call's output. */
async function chat(message: string, script: Script) {
  const model = scriptedModel(script);
  setAgentModelForTests(model);
  const turn = await say({ message });
  return { model, chunks: turn.chunks, outputs: outputs(turn) };
}

const colour = { toolCalls: [{ name: "update_global_styles", input: { colors: { primary: "#c0ffee" } } }] };

describe("permissions changed in WordPress", () => {
  it("says exactly how to grant the design permission, and changes nothing", async () => {
    expect(howToGrant(["design:write"])).toBe(
      "In WordPress, go to Settings → Sitewright, tick “Change the design” and click Save permissions. You do not need to pair the site again: Sitewright picks the change up on your next message.",
    );
    const counter = { requests: [] as Array<{ method: string; route: string }> };
    setChatDepsForTests({ ...limits, siteClient: (site) => countingClient(siteClientFor(site), counter) });
    const { model, outputs, chunks } = await chat("Make the primary colour #c0ffee", [colour, { text: "Done." }]);

    expect(outputs).toEqual([
      {
        ok: false,
        code: "scope_not_granted",
        error: `Not done: this site has not given Sitewright the permission “Change the design”. ${howToGrant(["design:write"])}`,
      },
    ]);
    expect(outputs[0]!.error).toBe(scopeRefusal("design:write"));
    // No approval was asked for a change that cannot be made.
    expect(chunks.some((c) => c.type === "tool-approval-request")).toBe(false);
    const system = JSON.stringify(model.doStreamCalls[0]!.prompt[0]);
    expect(system).toContain("Not granted on this site yet: ");
    expect(system).toContain("update_global_styles");
    // The locked tool never reached the site: the agent made no request at all in this turn.
    expect(counter.requests).toEqual([]);
  });

  it("picks widened scopes up on the next message, without pairing again", async () => {
    await saveScopes("site:read,content:read,content:write,design:write");
    // The turn's own read of /info is slow this time: the stored description (no design) is used at first, so the
    // locked tool must read the scopes again itself.
    setChatDepsForTests({
      ...limits,
      refreshSite: async (site, options) => (options?.force ? refreshSiteInfo(site) : site),
    });
    const { chunks, outputs } = await chat("Make the primary colour #c0ffee", [colour, { text: "Waiting for you." }]);
    expect(outputs).toEqual([]);
    // The colour change is planned and waits for the owner's click, as any visible change does.
    expect(chunks.filter((c) => c.type === "tool-approval-request")).toHaveLength(1);
    const stored = await findSiteForUser({ userId: user.id, siteId });
    expect((stored!.siteInfo!.token as { scopes: string[] }).scopes).toContain("design:write");
    expect(stored!.capabilities).toContain("edit_theme_options");
    const page = await loadChatPage({ userId: user.id, siteId });
    expect(page!.permissions!.granted.map((p) => p.label)).toContain("Change the design");
    expect(page!.permissions!.missing.map((p) => p.scope)).toEqual(["media:write", "settings:write"]);
  });

  it("re-reads the scopes when the site refuses a call for lack of one, and says how to grant it", async () => {
    await saveScopes("site:read,content:read");
    // The stored description still says content:write (narrowed in WordPress a moment ago).
    setChatDepsForTests({
      ...limits,
      refreshSite: async (site, options) => (options?.force ? refreshSiteInfo(site) : site),
    });
    const { outputs } = await chat("Make a draft called Narrowed", [
      { toolCalls: [{ name: "create_draft", input: { type: "page", title: "Narrowed" } }] },
      { text: "Told you." },
    ]);
    expect(outputs).toEqual([{ ok: false, code: "scope_not_granted", error: scopeRefusal("content:write") }]);
    expect(outputs[0]!.error).toContain("tick “Edit pages and posts” and click Save permissions");
    const stored = await findSiteForUser({ userId: user.id, siteId });
    expect((stored!.siteInfo!.token as { scopes: string[] }).scopes).toEqual(["site:read", "content:read"]);
    await saveScopes(NARROW);
  });
});
