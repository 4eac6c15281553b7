/**
 * The chat's approved write is followed by the look at the live site (docs/verification.md): through `POST /chat`
 * with a scripted model against the real WordPress, the owner approves a rename of a published page, and the turn's
 * change set then reads `verified` with the page's public address.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findChangeSet } from "@/lib/db/queries";
import { useTestDatabase } from "@/lib/db/testing";
import { setVerificationDepsForTests } from "@/lib/workflows/verify-change-set";
import { newUser } from "@/test/accounts";
import { installMuPlugin, runAsAdmin } from "@/test/wordpress";
import { setAgentModelForTests } from "./model";
import { pairAgentSite, startAgentSite, type AgentTestSite } from "@/test/agent-site";
import { answerEvery, chatAs } from "@/test/chat";
import { scriptedModel } from "./testing/scripted-model";

useTestDatabase();

let wp: AgentTestSite;
let user: { cookie: string; id: string };
let siteId: string;

beforeAll(async () => {
  wp = await startAgentSite();
  user = await newUser("verify-chat");
  siteId = await pairAgentSite(wp, user.id);
  setVerificationDepsForTests({ delays: [0, 300] });
  installMuPlugin(
    wp.local.wpPath,
    "sitewright-test-page-cache.php",
    readFileSync(path.resolve(import.meta.dirname, "../../test/fixtures/page-cache-mu-plugin.php"), "utf8"),
  );
}, 120_000);

afterAll(async () => {
  setVerificationDepsForTests(undefined);
  setAgentModelForTests(undefined);
  await wp?.local.stop();
});

const chat = chatAs(() => ({ siteId, cookie: user.cookie }));

async function settled(changeSetId: string) {
  for (let i = 0; i < 60; i++) {
    const set = await findChangeSet({ id: changeSetId, userId: user.id, siteId });
    if (set?.verification && set.verification.status !== "pending") return set;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error("the look at the live site did not finish");
}

describe("the chat's approved writes are checked on the live site", () => {
  it("records 'verified' with the page's address after the owner approves a rename", async () => {
    const { data } = await wp.admin.post<{ id: number; link: string }>("/wp/v2/pages", {
      title: "Opening hours",
      content: "<!-- wp:paragraph --><p>Nine to five.</p><!-- /wp:paragraph -->",
      status: "publish",
    });
    setAgentModelForTests(
      scriptedModel([
        { toolCalls: [{ name: "update_page", input: { id: data.id, title: "Opening times" }, id: "call_rename" }] },
        { text: "Renamed." },
      ]),
    );
    const asked = await chat({ message: "Rename it" });
    const approved = await answerEvery(chat, asked);
    const set = await settled(approved.metadata!.changeSetId as string);
    expect(set.verification).toMatchObject({ status: "verified", urls: [{ status: "verified" }] });
    expect(set.verification?.urls[0]?.url).toBe(data.link);
  });

  it("tells the model on the next turn that the last change is not visible yet, so it says so to the owner", async () => {
    await runAsAdmin(wp.local.wpPath, "update_option('sitewright_test_cache_mode', 'stubborn'); echo 'true';");
    try {
      const { data } = await wp.admin.post<{ id: number; link: string }>("/wp/v2/pages", {
        title: "Prices",
        content: "<!-- wp:paragraph --><p>Coffee two euros.</p><!-- /wp:paragraph -->",
        status: "publish",
      });
      await fetch(data.link); // a visitor fills the cache nothing purges
      setAgentModelForTests(
        scriptedModel([
          { toolCalls: [{ name: "update_page", input: { id: data.id, title: "Price list" }, id: "call_prices" }] },
          { text: "Renamed." },
        ]),
      );
      const asked = await chat({ message: "Rename it" });
      const approved = await answerEvery(chat, asked);
      const set = await settled(approved.metadata!.changeSetId as string);
      expect(set.verification?.status).toBe("not_visible");

      const model = scriptedModel([{ text: "Your last change is not visible yet." }]);
      setAgentModelForTests(model);
      await chat({ conversationId: asked.conversationId, message: "Is it live?" });
      const prompt = JSON.stringify(model.doStreamCalls.at(-1)!.prompt);
      expect(prompt).toContain("did not find it: a cache in front of the site still shows the earlier version");
      expect(prompt).not.toContain("Coffee");
    } finally {
      await runAsAdmin(wp.local.wpPath, "update_option('sitewright_test_cache_mode', 'off'); echo 'true';");
    }
  });
});
