/**
 * When the site refuses a write because it would store something other than the plan (`409 sitewright_filtered`:
 * markup the agent may not write), the chat's model gets an error it can explain in words, nothing is written, and
 * the change is not recorded as done. Through `POST /chat` with a scripted model against the real WordPress.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/lib/db/testing";
import { newUser } from "@/test/accounts";
import { pairAgentSite, startAgentSite, type AgentTestSite } from "@/test/agent-site";
import { chatAs, outputs } from "@/test/chat";
import { setAgentModelForTests } from "./model";
import { scriptedModel } from "./testing/scripted-model";

useTestDatabase();

let wp: AgentTestSite;
let user: { cookie: string; id: string };
let siteId: string;

const chat = chatAs(() => ({ siteId, cookie: user.cookie }));

beforeAll(async () => {
  wp = await startAgentSite();
  user = await newUser("exact-chat");
  siteId = await pairAgentSite(wp, user.id);
}, 120_000);

afterAll(async () => {
  setAgentModelForTests(undefined);
  await wp?.local.stop();
});

describe("a write the site would filter", () => {
  it("comes back to the model as sitewright_filtered, in words, and the draft stays as it was", async () => {
    const original = "<!-- wp:paragraph --><p>Find us.</p><!-- /wp:paragraph -->";
    const { data } = await wp.admin.post<{ id: number }>("/wp/v2/pages", {
      title: "Directions",
      content: original,
      status: "draft",
    });
    const iframe = '<!-- wp:html --><iframe src="https://maps.example.com/embed"></iframe><!-- /wp:html -->';
    setAgentModelForTests(
      scriptedModel([
        { toolCalls: [{ name: "insert_block", input: { id: data.id, position: "end", markup: iframe } }] },
        { text: "The site does not allow that embed." },
      ]),
    );
    const [output] = outputs(await chat({ message: "Add our map" }));
    expect(output).toMatchObject({ ok: false, code: "sitewright_filtered" });
    expect(output!.error).toContain("iframe");
    expect(output!.error).toContain("nothing was changed");
    const stored = await wp.admin.get<{ content: { raw: string } }>(`/wp/v2/pages/${data.id}`, { context: "edit" });
    expect(stored.data.content.raw).toBe(original);
  });
});
