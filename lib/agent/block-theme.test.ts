/**
 * The block-theme operations on the real WordPress with our plugin (scripts/site-local; its default theme is a
 * block theme), through `POST /chat` with a scripted model (the only fake), the owner's click and the change
 * set's undo route. Nothing here names a theme or a WordPress version: the test reads what the site reports.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { POST as UNDO } from "@/app/sites/[id]/changes/[changeSetId]/undo/route";
import { readItem } from "@/lib/sites/items";
import { findSiteForUser } from "@/lib/db/queries";
import { useTestDatabase } from "@/lib/db/testing";
import { siteClientFor } from "@/lib/sites/sites";
import { newUser } from "@/test/accounts";
import { call } from "@/test/http";
import { resetBreakersForTests } from "./breaker";
import { setChatDepsForTests } from "@/lib/workflows/chat-turn";
import { effectivePresets } from "./global-styles";
import { setAgentModelForTests } from "./model";
import { readGlobalStyles } from "./operations/global-styles-site";
import { listNavigations } from "./operations/navigation-posts";
import { allowedOperations, grantFromSiteInfo } from "./registry";
import { type AgentTestSite, pairAgentSite, startAgentSite } from "@/test/agent-site";
import { approvalIds, changeSetIds, chatAs, outputs } from "@/test/chat";
import { scriptedModel, type Script } from "./testing/scripted-model";

useTestDatabase();

let wp: AgentTestSite;
let user: { cookie: string; id: string };
let siteId: string;

beforeAll(async () => {
  wp = await startAgentSite();
  user = await newUser("blocktheme");
  siteId = await pairAgentSite(wp, user.id);
});
afterAll(async () => {
  setChatDepsForTests(undefined);
  setAgentModelForTests(undefined);
  await wp?.local.stop();
});
beforeEach(() => {
  resetBreakersForTests();
  setChatDepsForTests({
    siteClient: (site) => siteClientFor(site),
    limits: () => ({ maxSteps: 8, maxToolCalls: 12, maxTokens: 100_000, timeoutMs: 30_000 }),
  });
});

const chat = chatAs(() => ({ siteId, cookie: user.cookie }));
const useModel = (script: Script) => setAgentModelForTests(scriptedModel(script));

/** The front page as a visitor gets it. */
const frontPage = async () => {
  const response = await wp.local.fetch("/");
  expect(response.status).toBe(200);
  return response.body;
};
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("a block-theme site", () => {
  it("is offered navigation, global styles and template parts, and not classic menus or Additional CSS", () => {
    expect((wp.info.theme as { isBlockTheme?: unknown }).isBlockTheme).toBe(true);
    const offered = allowedOperations(grantFromSiteInfo(wp.info)).operations.map((op) => op.name);
    expect(offered).toEqual(
      expect.arrayContaining(["change_navigation", "update_global_styles", "update_template_part"]),
    );
    expect(offered).not.toContain("change_menu");
    expect(offered).not.toContain("update_custom_css");
  });

  it("follows a theme switch after pairing: a site paired on a classic theme is offered block operations once it runs a block theme", async () => {
    // Stored when the site was paired on a classic theme; the site has since switched to its block theme.
    const pairedOnClassic = {
      ...wp.info,
      theme: { ...(wp.info.theme as Record<string, unknown>), isBlockTheme: false, stylesheet: "classic-theme" },
    };
    const switchedId = await pairAgentSite(wp, user.id, { info: pairedOnClassic });
    expect(allowedOperations(grantFromSiteInfo(pairedOnClassic)).operations.map((op) => op.name)).not.toContain(
      "read_global_styles",
    );
    useModel([{ toolCalls: [{ name: "read_global_styles", input: {} }] }, { text: "Read them." }]);
    const turn = await chat({ siteId: switchedId, message: "What colours does my site use?" });
    expect(turn.chunks.filter((c) => c.type === "tool-input-error")).toEqual([]);
    expect(turn.chunks.some((c) => c.type === "tool-output-available")).toBe(true);
    const stored = await findSiteForUser({ userId: user.id, siteId: switchedId });
    expect(stored?.siteInfo).toMatchObject({ theme: { isBlockTheme: true } });
  });

  it("through the chat: changes the accent colour and adds a navigation link, both on the front page; undo restores it exactly", async () => {
    // A published page to link to (made first: the page list a site without a saved menu shows includes it).
    const { data: page } = await wp.admin.post<{ id: number; link: string }>("/wp/v2/pages", {
      title: "Opening hours",
      content: "<!-- wp:paragraph --><p>Every day</p><!-- /wp:paragraph -->",
      status: "publish",
    });
    const styles = await readGlobalStyles(wp.admin);
    const palette = effectivePresets(styles.theme.settings, styles.user.settings, "colors");
    // The accent: a colour named so, or the theme's first colour that is not the text or background one.
    const accent =
      palette.find((c) => /accent|primary/i.test(`${c.slug} ${c.name}`)) ??
      palette.find((c) => !/base|background|contrast|foreground/i.test(c.slug))!;
    expect(accent).toBeDefined();
    const stylesBefore = await readItem(wp.admin, styles.item.ref);
    // Showing the front page first: WordPress 6.3+ saves the header's page list as a menu the first time it renders.
    const before = await frontPage();
    const menusBefore = await listNavigations(wp.admin);
    expect(before).not.toContain("#c0ffee");

    useModel([
      {
        toolCalls: [
          { name: "update_global_styles", input: { colors: { [accent.slug]: "#c0ffee" } } },
          { name: "change_navigation", input: { action: "add", pageId: page.id, label: "Hours & days" } },
        ],
      },
      { text: "Changed the accent colour and added the link." },
    ]);
    const asked = await chat({ message: "Make the accent colour #c0ffee and add Opening hours to the menu" });
    // Visitors would see both: live, they wait for the owner's click, and nothing is written yet.
    expect(approvalIds(asked)).toHaveLength(2);
    expect(await frontPage()).toBe(before);
    // The approval cards say what changes in the owner's words: the colour by name, the links by label.
    const pending = asked.chunks
      .filter((c) => c.type === "data-change")
      .flatMap((c) => (c.data as { items: Array<Record<string, any>> }).items);
    const colour = `Colour ${accent.name ?? accent.slug}`;
    expect(pending.find((i) => i.kind === "global_styles")).toMatchObject({
      before: { [colour]: accent.color },
      after: { [colour]: "#c0ffee" },
    });
    expect(pending.find((i) => i.kind === "navigation")).toMatchObject({
      before: { Links: "all published pages" },
      after: { Links: "all published pages · Hours & days" },
    });

    const done = await chat({
      conversationId: asked.conversationId,
      approvals: approvalIds(asked).map((id) => ({ id, approved: true })),
    });
    expect(
      outputs(done).map((o) => o.ok),
      JSON.stringify(outputs(done)),
    ).toEqual([true, true]);

    const after = await frontPage();
    expect(after).toMatch(new RegExp(`--wp--preset--color--${escapeRegExp(accent.slug)}:\\s*#c0ffee`, "i"));
    const link = new RegExp(`<a[^>]*href="${escapeRegExp(page.link)}"[^>]*>(<span[^>]*>)?Hours &amp; days`);
    expect(after).toMatch(link);

    // Undo the turn's change set(s) through the owner's route.
    const sets = changeSetIds(done);
    expect(sets.length).toBeGreaterThan(0);
    for (const changeSetId of sets) {
      const undone = await call(UNDO, {
        body: {},
        cookie: user.cookie,
        params: { id: siteId, changeSetId },
        headers: { origin: "http://localhost:3000" },
      });
      expect(undone.status, undone.text).toBe(200);
    }
    expect(await frontPage()).toBe(before);
    expect((await readItem(wp.admin, styles.item.ref)).version).toBe(stylesBefore.version);
    expect((await listNavigations(wp.admin)).map((m) => m.id)).toEqual(menusBefore.map((m) => m.id));
  });
});
