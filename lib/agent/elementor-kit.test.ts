/**
 * Elementor's kit (global colours and fonts) through the chat, on WordPress 7.1 with Elementor 4.2.2 running:
 * get_site_info lists the tokens, edit_builder_page's colour and font forms plan a design item that waits for the
 * owner's click and shows each token by name; once approved every Elementor page's kit CSS carries the new values
 * (Elementor's site-wide CSS cache cleared); undo gives the kit's stored settings back byte for byte, and refuses
 * over a person's save in Site Settings since. A scripted model is the only fake.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { POST as UNDO } from "@/app/sites/[id]/changes/[changeSetId]/undo/route";
import { useTestDatabase } from "@/lib/db/testing";
import { readItem } from "@/lib/sites/items";
import { siteClientFor } from "@/lib/sites/sites";
import { setChatDepsForTests } from "@/lib/workflows/chat-turn";
import { newUser } from "@/test/accounts";
import { type AgentTestSite, pairAgentSite, startAgentSite } from "@/test/agent-site";
import { approvalIds, changeSetIds, chatAs, outputs } from "@/test/chat";
import { call } from "@/test/http";
import { runAsAdmin } from "@/test/wordpress";
import { resetBreakersForTests } from "./breaker";
import { KIT_REF } from "./elementor-kit";
import { setAgentModelForTests } from "./model";
import { scriptedModel } from "./testing/scripted-model";

useTestDatabase();

let wp: AgentTestSite;
let user: { cookie: string; id: string };
let siteId: string;
let pageUrl: string;

beforeAll(async () => {
  wp = await startAgentSite(undefined, { wordpress: "7.1", plugins: ["elementor"] });
  user = await newUser("elementorkit");
  siteId = await pairAgentSite(wp, user.id);
  // An Elementor page: Elementor prints the kit's CSS (its global colours and fonts) on it.
  pageUrl = await runAsAdmin<string>(
    wp.local.wpPath,
    `$id = wp_insert_post(array('post_type' => 'page', 'post_status' => 'publish', 'post_title' => 'Kit page'));
     update_post_meta($id, '_elementor_edit_mode', 'builder');
     update_post_meta($id, '_elementor_version', '4.2.2');
     update_post_meta($id, '_elementor_data', wp_slash(wp_json_encode(array(array('id' => 'h1h1h1h', 'elType' => 'widget', 'widgetType' => 'heading', 'settings' => array('title' => 'Kit page', 'title_color' => 'globals/colors?id=primary'), 'elements' => array())))));
     echo json_encode(get_permalink($id));`,
  );
}, 300_000);
afterAll(async () => {
  setChatDepsForTests(undefined);
  setAgentModelForTests(undefined);
  await wp?.local.stop();
});
beforeEach(() => {
  resetBreakersForTests();
  setChatDepsForTests({
    siteClient: (site) => siteClientFor(site),
    limits: () => ({ maxSteps: 8, maxToolCalls: 12, maxTokens: 100_000, timeoutMs: 60_000 }),
  });
});

const chat = chatAs(() => ({ siteId, cookie: user.cookie }));

/** The kit's CSS as a visitor's browser gets it: the file the Elementor page links, rebuilt when its cache is gone. */
async function kitCss(): Promise<string> {
  const page = await wp.local.fetch(new URL(pageUrl).pathname);
  const href = /href='([^']*\/elementor\/css\/post-\d+\.css[^']*)'/.exec(page.body)?.[1];
  expect(href, "the Elementor page links the kit's CSS").toBeDefined();
  const kit = (await readItem(wp.admin, KIT_REF)).state?.kit;
  const all = [...page.body.matchAll(/href='([^']*\/elementor\/css\/post-(\d+)\.css[^']*)'/g)];
  const link = all.find((m) => Number(m[2]) === kit)?.[1];
  expect(link, "the Elementor page links the kit's own CSS").toBeDefined();
  const css = await wp.local.fetch(new URL(link!.replace(/&#038;/g, "&")).pathname);
  return css.body;
}

/** The kit post's stored meta rows, as bytes. */
const kitMeta = (kit: number) =>
  runAsAdmin<Array<{ meta_key: string; meta_value: string }>>(
    wp.local.wpPath,
    `global $wpdb;
     echo json_encode($wpdb->get_results($wpdb->prepare("SELECT meta_key, meta_value FROM $wpdb->postmeta WHERE post_id = %d AND meta_key NOT IN ('_elementor_css') ORDER BY meta_id", $args), ARRAY_A));`,
    kit,
  );

/** The model: reads the site (the kit's tokens ride on it), then sets the kit id it read. */
const kitModel = (edits: string[][]) =>
  scriptedModel([
    { toolCalls: [{ name: "get_site_info", input: {} }] },
    (prompt) => {
      const kit = Number(/elementorKit[^0-9]{0,16}(\d+)/.exec(JSON.stringify(prompt))?.[1]);
      return { toolCalls: [{ name: "edit_builder_page", input: { id: kit, edits } }] };
    },
    { text: "Changed the kit." },
  ]);

describe("Elementor's kit through the chat", () => {
  it("reads the global colours and fonts, changes them only once approved, site-wide, and undoes byte for byte", async () => {
    const before = await readItem(wp.admin, KIT_REF);
    const kit = before.state?.kit as number;
    const metaBefore = await kitMeta(kit);
    const cssBefore = await kitCss();
    expect(cssBefore).toMatch(/--e-global-color-primary:\s*#6EC1E4/i);

    setAgentModelForTests(
      kitModel([
        ["color", "primary", "#c0ffee"],
        ["font", "secondary", "Lora"],
      ]),
    );
    const asked = await chat({ message: "Make the Elementor primary colour #c0ffee and the secondary font Lora" });
    const info = outputs(asked).find((o) => o.data?.elementorKit)?.data.elementorKit;
    expect(info.colors).toContainEqual({ id: "primary", name: "Primary", value: "#6EC1E4" });
    expect(info.fonts).toContainEqual({ id: "secondary", name: "Secondary", value: "Roboto Slab" });
    expect(approvalIds(asked)).toHaveLength(1);
    const pending = asked.chunks
      .filter((c) => c.type === "data-change")
      .flatMap((c) => (c.data as { items: Array<Record<string, any>> }).items);
    expect(pending[0]).toMatchObject({
      kind: "global_styles",
      before: { "Colour Primary": "#6EC1E4", "Font Secondary": "Roboto Slab" },
      after: { "Colour Primary": "#c0ffee", "Font Secondary": "Lora" },
    });
    expect((await readItem(wp.admin, KIT_REF)).version).toBe(before.version); // nothing written before the click

    const done = await chat({
      conversationId: asked.conversationId,
      approvals: approvalIds(asked).map((id) => ({ id, approved: true })),
    });
    expect(
      outputs(done).map((o) => o.ok),
      JSON.stringify(outputs(done)),
    ).toEqual([true]);
    const css = await kitCss();
    expect(css).toMatch(/--e-global-color-primary:\s*#c0ffee/i);
    expect(css).toMatch(/--e-global-typography-secondary-font-family:\s*"Lora"/i);

    const changeSetId = changeSetIds(done)[0]!;
    const undone = await call(UNDO, {
      body: {},
      cookie: user.cookie,
      params: { id: siteId, changeSetId },
      headers: { origin: "http://localhost:3000" },
    });
    expect(undone.status, undone.text).toBe(200);
    expect(await kitMeta(kit)).toEqual(metaBefore);
    expect((await readItem(wp.admin, KIT_REF)).version).toBe(before.version);
    expect(await kitCss()).toMatch(/--e-global-color-primary:\s*#6EC1E4/i);
  }, 240_000);

  it("refuses the undo over a person's save in Site Settings since, naming the kit, and keeps their colour", async () => {
    setAgentModelForTests(kitModel([["color", "accent", "#112233"]]));
    const asked = await chat({ message: "Make the Elementor accent colour #112233" });
    const done = await chat({
      conversationId: asked.conversationId,
      approvals: approvalIds(asked).map((id) => ({ id, approved: true })),
    });
    expect(outputs(done).map((o) => o.ok)).toEqual([true]);
    // A person picks another accent colour in Elementor's Site Settings (the kit document's own save).
    await runAsAdmin(
      wp.local.wpPath,
      `$kit = \\Elementor\\Plugin::$instance->kits_manager->get_active_kit();
       $colors = $kit->get_settings('system_colors');
       foreach ($colors as &$c) { if ($c['_id'] === 'accent') $c['color'] = '#445566'; }
       $kit->save(array('settings' => array_merge($kit->get_settings(), array('system_colors' => $colors))));
       echo json_encode(true);`,
    );
    const changeSetId = changeSetIds(done)[0]!;
    const undone = await call(UNDO, {
      body: {},
      cookie: user.cookie,
      params: { id: siteId, changeSetId },
      headers: { origin: "http://localhost:3000" },
    });
    expect(undone.status).toBe(409);
    expect(undone.text).toContain("Elementor global colours and fonts");
    expect((await readItem(wp.admin, KIT_REF)).state?.colors).toMatchObject({ accent: "#445566" });
  }, 240_000);
});
