/**
 * The v1.2 reach operations against the real WordPress with our plugin: categories and tags, scheduling, an
 * image's text and the SEO fields (through a stand-in for Yoast SEO that keeps Yoast's own meta keys and prints
 * them in the page head, as Yoast does). Each plans with the visibility the click rule needs, is written through the
 * items route as the write path does, shows on the public site, is refused over a person's newer edit, and is undone
 * by the reverse the change-set layer computes, back to the same version.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { undoWritten, type WrittenPlan, writePlan } from "@/test/changes";
import { readItem, StaleItemsError } from "@/lib/sites/items";
import { type AgentTestSite, startAgentSite } from "@/test/agent-site";
import { planCall } from "../call-operation";
import { installMuPlugin, runAsAdmin } from "@/test/wordpress";
import listTerms from "./list_terms";
import type { Operation, WritePlan } from "./operation";
import { OperationError } from "./operation";
import readPage from "./read_page";
import saveTerm from "./save_term";
import schedulePost from "./schedule_post";
import setPostTerms from "./set_post_terms";
import updateMedia from "./update_media";
import updatePage from "./update_page";
import updateSeo from "./update_seo";

// Each test makes several PHP and signed requests to the real site (the plan asks where visitors would see it too):
// well over 30 s on a loaded two-core machine.
vi.setConfig({ testTimeout: 120_000 });

let wp: AgentTestSite;

beforeAll(async () => {
  wp = await startAgentSite();
  installMuPlugin(
    wp.local.wpPath,
    "yoast-stand-in.php",
    `<?php
// Stands in for Yoast SEO: its version constant, and its meta description printed in the head from its own key.
define( 'WPSEO_VERSION', '24.0' );
add_action( 'wp_head', function () {
	if ( is_singular() ) {
		$description = get_post_meta( get_queried_object_id(), '_yoast_wpseo_metadesc', true );
		if ( '' !== $description ) {
			echo '<meta name="description" content="' . esc_attr( $description ) . '" />' . "\\n";
		}
	}
} );
`,
  );
});
afterAll(async () => {
  await wp?.local.stop();
});

const run = async (op: Operation, input: unknown) => (await op.run!(wp.admin, op.input.parse(input))).data as any;
/** Plans as every door does: the operation's plan, and the plugin's answer on where visitors would see it. */
const plan = (op: Operation, input: unknown) => planCall(wp.admin, op, op.input.parse(input), { target: "live" });

const write = (planned: WritePlan) => writePlan(wp.admin, planned);
const undo = (done: WrittenPlan) => undoWritten(wp.admin, done);

const php = <T>(body: string, args: unknown = null) => runAsAdmin<T>(wp.local.wpPath, body, args);

const publishedPost = (title: string) =>
  php<number>(
    "echo wp_insert_post(array('post_type' => 'post', 'post_status' => 'publish', 'post_title' => $args, 'post_content' => 'Bread.'));",
    title,
  );

/** A public page as a visitor gets it, by its permalink (a `?p=` address redirects there). */
const page = async (phpLink: string, arg: unknown) => {
  const url = await php<string>(`echo json_encode(${phpLink});`, arg);
  return (await wp.local.fetch(new URL(url).pathname + new URL(url).search)).body;
};

describe("categories and tags", () => {
  it("creates a term at once (nothing shows it), then files a published post under it behind the click; undo takes both back", async () => {
    const created = await plan(saveTerm, { taxonomy: "category", name: "News & Events" });
    expect(created.items[0]).toMatchObject({ kind: "term", visible: false, action: "create" });
    const [term] = await write(created);
    expect(term!.written.ref).toMatch(/^term:\d+$/);
    expect(term!.written.after).toMatchObject({ name: "News &amp; Events", slug: "news-events", taxonomy: "category" });
    expect((await run(listTerms, { search: "News" })).items.map((t: { slug: string }) => t.slug)).toContain(
      "news-events",
    );

    const id = await publishedPost("Winter opening hours");
    const assigned = await plan(setPostTerms, {
      id,
      add: ["news-events"],
      remove: ["uncategorized"],
    });
    expect(assigned.items[0]).toMatchObject({
      kind: "post",
      visible: true,
      before: { categories: ["uncategorized"] },
      after: { categories: ["news-events"] },
    });
    const done = await write(assigned);
    // The post's public page names its category (the theme's post-terms block), by the name WordPress stores.
    expect(await page("get_permalink((int) $args)", id)).toContain("News &amp; Events");

    // Renaming a term a published post uses is visible: it waits for the click.
    const renamed = await plan(saveTerm, { id: Number(term!.written.ref.slice(5)), name: "Latest news" });
    expect(renamed.items[0]).toMatchObject({ kind: "term", visible: true, before: { name: "News &amp; Events" } });

    await undo(done);
    expect((await readItem(wp.admin, `post:${id}`)).state?.categories).toEqual(["uncategorized"]);
    await undo([term!]);
    expect((await readItem(wp.admin, term!.written.ref)).exists).toBe(false);
  });

  it("refuses to write over a person's newer change of the post's terms, and keeps theirs", async () => {
    const id = await publishedPost("Spring menu");
    // A tag that does not exist yet: the agent is told to create it first.
    await expect(plan(setPostTerms, { id, taxonomy: "post_tag", add: ["seasonal"] })).rejects.toThrow(
      /create it with save_term first/,
    );
    await write(await plan(saveTerm, { taxonomy: "post_tag", name: "seasonal" }));
    const ready = await plan(setPostTerms, { id, taxonomy: "post_tag", add: ["seasonal"] });
    await php(
      "wp_set_object_terms((int) $args, array('uncategorized'), 'category'); wp_set_post_tags((int) $args, 'menu'); echo 1;",
      id,
    );
    await expect(write(ready)).rejects.toBeInstanceOf(StaleItemsError);
    expect((await readItem(wp.admin, `post:${id}`)).state?.tags).toEqual(["menu"]);
  });
});

describe("slug, excerpt and scheduling", () => {
  it("schedules a draft in the site's time zone behind the click, and undo unschedules it to the draft it was", async () => {
    await php("update_option('timezone_string', 'Europe/Berlin'); echo 1;");
    const id = await php<number>(
      "echo wp_insert_post(array('post_type' => 'post', 'post_status' => 'draft', 'post_title' => 'Advent market'));",
    );
    const before = await readItem(wp.admin, `post:${id}`);
    const at = `${new Date().getUTCFullYear() + 1}-12-07 09:00`;
    const planned = await plan(schedulePost, { type: "post", id, at });
    expect(planned.items[0]!.visible).toBe(true);
    expect(planned.items[0]!.change.fields).toEqual({ status: "future", date: `${at.slice(0, 10)} 08:00:00` });
    expect(String(planned.items[0]!.after?.date)).toContain("Europe/Berlin");
    const done = await write(planned);
    expect(done[0]!.written.after).toMatchObject({ status: "future", date: `${at.slice(0, 10)} 08:00:00` });
    expect(await php<string>("echo json_encode(get_post((int) $args)->post_date);", id)).toBe(`${at}:00`);

    await undo(done);
    const after = await readItem(wp.admin, `post:${id}`);
    expect(after.version).toBe(before.version);
    expect(after.state).toMatchObject({ status: "draft", date: "0000-00-00 00:00:00" });
  });

  it("refuses a time in the past or one the clocks skip", async () => {
    const id = await php<number>(
      "echo wp_insert_post(array('post_type' => 'post', 'post_status' => 'draft', 'post_title' => 'X'));",
    );
    await expect(plan(schedulePost, { type: "post", id, at: "2020-01-01 09:00" })).rejects.toBeInstanceOf(
      OperationError,
    );
    await expect(
      // Clocks in Berlin go from 02:00 to 03:00 on the last Sunday of March: 2030-03-31.
      plan(schedulePost, { type: "post", id, at: "2030-03-31 02:30" }),
    ).rejects.toThrow(/not a time that exists/);
  });

  it("changes a published page's slug behind the click, and read_page reports slug, date and terms", async () => {
    const id = await publishedPost("Our story");
    const planned = await plan(updatePage, { type: "post", id, slug: "about-the-bakery", excerpt: "Since 1952." });
    expect(planned.items[0]).toMatchObject({
      visible: true,
      after: { slug: "about-the-bakery", excerpt: "Since 1952." },
    });
    await write(planned);
    const read = await run(readPage, { type: "post", id });
    expect(read).toMatchObject({
      slug: "about-the-bakery",
      excerpt: "Since 1952.",
      categories: ["uncategorized"],
      tags: [],
    });
    expect(read.seo).toMatchObject({ plugin: "yoast", title: "", description: "", noindex: null });
  });
});

describe("an image's text", () => {
  it("writes alt text at once while nothing published shows the image, and behind the click once something does", async () => {
    // Attached to a draft: its attachment page is not public (an unattached image's is, on WordPress 6.1).
    const image = await php<number>(
      "$draft = wp_insert_post(array('post_type' => 'post', 'post_status' => 'draft', 'post_title' => 'Shop notes')); echo wp_insert_attachment(array('post_title' => 'Storefront', 'post_mime_type' => 'image/jpeg', 'post_status' => 'inherit'), false, $draft);",
    );
    const unused = await plan(updateMedia, { id: image, alt: "The blue door of the bakery" });
    expect(unused.items[0]).toMatchObject({
      kind: "media",
      visible: false,
      after: { alt: "The blue door of the bakery" },
    });
    const done = await write(unused);
    await publishedPost(`<img class="wp-image-${image}" />`);
    await php("wp_update_post(array('ID' => (int) $args[0], 'post_content' => $args[1])); echo 1;", [
      await publishedPost("Visit us"),
      `<!-- wp:image {"id":${image}} --><figure class="wp-block-image"><img class="wp-image-${image}"/></figure><!-- /wp:image -->`,
    ]);
    const used = await plan(updateMedia, { id: image, alt: "The bakery's blue door at dawn", caption: "Main Street" });
    expect(used.items[0]).toMatchObject({
      visible: true,
      after: { alt: "The bakery's blue door at dawn", excerpt: "Main Street" },
    });
    const second = await write(used);
    expect(
      await php<string>("echo json_encode(get_post_meta((int) $args, '_wp_attachment_image_alt', true));", image),
    ).toBe("The bakery's blue door at dawn");
    await undo(second);
    await undo(done);
    expect(
      await php<string>("echo json_encode(get_post_meta((int) $args, '_wp_attachment_image_alt', true));", image),
    ).toBe("");
  });
});

describe("SEO fields in the SEO plugin's own storage", () => {
  it("reports the plugin, writes the description where Yoast keeps it, shows it in the page head, refuses over a newer edit, and undoes", async () => {
    const info = (await wp.admin.get<{ seo: unknown; features: string[] }>("/sitewright/v1/info")).data;
    expect(info.seo).toMatchObject({ plugin: "yoast", name: "Yoast SEO", version: "24.0", writable: true });
    expect(info.features).toContain("seo");
    const id = await publishedPost("Opening hours");
    const before = await readItem(wp.admin, `seo:${id}`);

    const planned = await plan(updateSeo, {
      type: "post",
      id,
      description: "Fresh bread from 7am, Monday to Saturday.",
    });
    expect(planned.items[0]).toMatchObject({
      kind: "seo",
      visible: true,
      title: "Opening hours",
      before: { description: "" },
      after: { description: "Fresh bread from 7am, Monday to Saturday." },
    });
    const done = await write(planned);
    expect(await php<string>("echo json_encode(get_post_meta((int) $args, '_yoast_wpseo_metadesc', true));", id)).toBe(
      "Fresh bread from 7am, Monday to Saturday.",
    );
    expect(await page("get_permalink((int) $args)", id)).toContain(
      '<meta name="description" content="Fresh bread from 7am, Monday to Saturday." />',
    );

    // A person edits the description in wp-admin: undo refuses and keeps theirs.
    await php("update_post_meta((int) $args, '_yoast_wpseo_metadesc', 'Written by the owner.'); echo 1;", id);
    await expect(undo(done)).rejects.toBeInstanceOf(StaleItemsError);
    expect(await php<string>("echo json_encode(get_post_meta((int) $args, '_yoast_wpseo_metadesc', true));", id)).toBe(
      "Written by the owner.",
    );
    await php(
      "update_post_meta((int) $args, '_yoast_wpseo_metadesc', 'Fresh bread from 7am, Monday to Saturday.'); echo 1;",
      id,
    );
    await undo(done);
    expect((await readItem(wp.admin, `seo:${id}`)).version).toBe(before.version);
  });
});
