/**
 * Elementor pages on WordPress 7.1 with Elementor 4.2.2 running (the suite's 7.1 tree, scripts/setup/wordpress.sh):
 * "change the hero heading and point the button at /contact" planned by the agent's operation writes nothing
 * before the write; after it, the public page shows both (Elementor's element cache and CSS cleared: without that
 * the old heading keeps showing); undo gives the page back byte for byte; a save in Elementor in between makes the
 * undo refuse, naming the page.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import editBuilderPage from "@/lib/agent/operations/edit_builder_page";
import { reverseChange } from "@/lib/changes/plan";
import { readItem, writeItems } from "@/lib/sites/items";
import { createSiteClient, type SignedSiteClient } from "@/lib/sites/client";
import { type LocalSite, startLocalSite } from "@/scripts/site-local";
import { runAsAdmin } from "@/test/wordpress";

let site: LocalSite;
let client: SignedSiteClient;

beforeAll(async () => {
  site = await startLocalSite({ wordpress: "7.1", plugins: ["elementor"] });
  const { token, secret } = await site.cli<{ token: string; secret: string }>(
    "create-credentials",
    "--scopes=site:read,content:read,content:write",
  );
  client = createSiteClient(
    { baseUrl: site.url, restUrl: `${site.url}/wp-json/`, token, secret },
    { ca: readFileSync(site.caPath, "utf8"), allowlist: ["localhost"], now: () => Date.now() },
  );
}, 240_000);

afterAll(async () => {
  await site?.stop();
});

const hero = [
  {
    id: "a1b2c3d",
    elType: "container",
    settings: { _title: "Hero" },
    elements: [
      {
        id: "h1h1h1h",
        elType: "widget",
        settings: { title: "Welcome to the bakery", header_size: "h1" },
        elements: [],
        widgetType: "heading",
      },
      {
        id: "b1b1b1b",
        elType: "widget",
        settings: { text: "Get in touch", link: { url: "/about" } },
        elements: [],
        widgetType: "button",
      },
    ],
    isInner: false,
  },
];

/** The public page as an anonymous visitor gets it. */
const visit = (url: string) =>
  execFileSync("curl", ["-sL", "--max-time", "60", "--cacert", site.caPath, url]).toString();

describe("Elementor pages on WordPress 7.1 with Elementor", () => {
  it("reports Elementor, writes both widget changes only when told, shows them on the public page, and undoes exactly", async () => {
    const info = (await client.get<{ builders: Array<{ name: string; version: string }> }>("/sitewright/v1/info")).data;
    expect(info.builders).toEqual([{ name: "elementor", version: "4.2.2" }]);

    const { id, url } = await runAsAdmin<{ id: number; url: string }>(
      site.wpPath,
      `$id = wp_insert_post(array('post_type' => 'page', 'post_status' => 'publish', 'post_title' => 'Home'));
       update_post_meta($id, '_elementor_edit_mode', 'builder');
       update_post_meta($id, '_elementor_template_type', 'wp-page');
       update_post_meta($id, '_elementor_version', '4.2.2');
       update_post_meta($id, '_elementor_data', wp_slash(wp_json_encode($args)));
       echo json_encode(array('id' => $id, 'url' => get_permalink($id)));`,
      hero,
    );
    expect(visit(url)).toContain("Welcome to the bakery"); // the first view fills Elementor's caches

    const plan = await editBuilderPage.plan!(
      client,
      editBuilderPage.input.parse({
        id,
        edits: [
          ["set", "h1h1h1h", "title", "Bread baked every morning"],
          ["set", "b1b1b1b", "link.url", "/contact"],
        ],
      }),
    );
    const [item] = plan.items;
    expect((item!.after as { elements: unknown[] }).elements).toHaveLength(2);
    const before = await readItem(client, `elementor:${id}`);
    expect(before.version).toBe(item?.versionRead); // planning wrote nothing
    expect(visit(url)).toContain("Welcome to the bakery");

    const [written] = await writeItems(client, [item!.change]);
    const page = visit(url);
    expect(page).toContain("Bread baked every morning");
    expect(page).toContain('href="/contact"');
    expect(page).not.toContain("Welcome to the bakery");

    const undo = reverseChange({
      ref: `elementor:${id}`,
      action: "update",
      beforeState: before.state,
      afterState: written!.after,
      versionAfter: written!.version,
    });
    await writeItems(client, [undo]);
    const undone = await readItem(client, `elementor:${id}`);
    expect(undone.state?.data).toBe(before.state?.data);
    expect(undone.version).toBe(before.version);
    expect(visit(url)).toContain("Welcome to the bakery");
  }, 180_000);

  it("refuses an undo over a save in Elementor since the write, naming the page", async () => {
    const id = await runAsAdmin<number>(
      site.wpPath,
      `$id = wp_insert_post(array('post_type' => 'page', 'post_status' => 'publish', 'post_title' => 'Edited'));
       update_post_meta($id, '_elementor_edit_mode', 'builder');
       update_post_meta($id, '_elementor_version', '4.2.2');
       update_post_meta($id, '_elementor_data', wp_slash(wp_json_encode($args)));
       echo json_encode($id);`,
      hero,
    );
    const plan = await editBuilderPage.plan!(
      client,
      editBuilderPage.input.parse({ id, edits: [["set", "h1h1h1h", "title", "Ours"]] }),
    );
    const [written] = await writeItems(client, [plan.items[0]!.change]);
    // A person saves the page in Elementor (its document save: new data, and the version Elementor writes).
    await runAsAdmin(
      site.wpPath,
      `wp_set_current_user(1);
       $document = \\Elementor\\Plugin::$instance->documents->get($args);
       $data = json_decode(get_post_meta($args, '_elementor_data', true), true);
       $data[0]['elements'][0]['settings']['title'] = 'Theirs';
       $document->save(array('elements' => $data));
       echo json_encode(true);`,
      id,
    );
    const undo = reverseChange({
      ref: `elementor:${id}`,
      action: "update",
      beforeState: plan.items[0]!.beforeState,
      afterState: written!.after,
      versionAfter: written!.version,
    });
    await expect(writeItems(client, [undo])).rejects.toMatchObject({ items: [{ ref: `elementor:${id}` }] });
    expect(String((await readItem(client, `elementor:${id}`)).state?.data)).toContain("Theirs");
  }, 180_000);
});
