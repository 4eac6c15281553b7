/**
 * The block-theme operations one by one against the real WordPress with our plugin (scripts/site-local; its
 * default theme is a block theme, read from /info, never named): each plans, the plan is written through the
 * plugin's items route as the write path does, the front page shows it, and the reverse the change-set layer
 * computes for undo puts the site back exactly.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readItem, StaleItemsError, writeItems } from "@/lib/sites/items";
import { humanEditPost, undoWritten, type WrittenPlan, writePlan } from "@/test/changes";
import { type AgentTestSite, startAgentSite } from "@/test/agent-site";
import changeNavigation from "./change_navigation";
import { listNavigations } from "./navigation-posts";
import type { Operation, WritePlan } from "./operation";
import { OperationError } from "./operation";
import readGlobalStyles from "./read_global_styles";
import readNavigation from "./read_navigation";
import readTemplatePart from "./read_template_part";
import updateGlobalStyles from "./update_global_styles";
import updateTemplatePart from "./update_template_part";

let wp: AgentTestSite;

beforeAll(async () => {
  wp = await startAgentSite();
});
afterAll(async () => {
  await wp?.local.stop();
});

const run = async (op: Operation, input: unknown) => (await op.run!(wp.admin, op.input.parse(input))).data as any;
const plan = (op: Operation, input: unknown) => op.plan!(wp.admin, op.input.parse(input));

const write = (planned: WritePlan) => writePlan(wp.admin, planned);
const undo = (done: WrittenPlan) => undoWritten(wp.admin, done);

const frontPage = async () => (await wp.local.fetch("/")).body;

describe("template parts", () => {
  it("lists the theme's parts, and changes one block of the header: a customised part that undo removes again", async () => {
    const { parts } = await run(readTemplatePart, {});
    const header = parts.find((p: { area: string }) => p.area === "header") ?? parts[0];
    expect(header.customised).toBe(false);
    const read = await run(readTemplatePart, { slug: header.slug });
    const item = await readItem(wp.admin, `template_part:${header.slug}`);
    const before = await frontPage();

    const markup = "<!-- wp:paragraph -->\n<p>Fresh bread from 7am</p>\n<!-- /wp:paragraph -->";
    const planned = await plan(updateTemplatePart, { slug: header.slug, position: "1", action: "before", markup });
    expect(planned.items).toHaveLength(1);
    expect(planned.items[0]).toMatchObject({
      kind: "template_part",
      visible: true,
      ref: `template_part:${header.slug}`,
    });
    const done = await write(planned);
    expect(done[0]!.written.after).toMatchObject({ customised: true });
    expect(await frontPage()).toContain("Fresh bread from 7am");
    const again = await run(readTemplatePart, { slug: header.slug });
    expect(again.customised).toBe(true);
    expect(again.outline[0]).toMatchObject({ position: "1", block: "core/paragraph", preview: "Fresh bread from 7am" });
    expect(again.outline.slice(1).map((e: { block: string }) => e.block)).toEqual(
      read.outline.map((e: { block: string }) => e.block),
    );

    // Removing that block again is a second change of the now customised part.
    const removed = await write(await plan(updateTemplatePart, { slug: header.slug, position: "1", action: "remove" }));
    expect(await frontPage()).not.toContain("Fresh bread from 7am");
    expect((await readItem(wp.admin, item.ref)).state?.content).toBe(item.state?.content);

    await undo(removed);
    expect(await frontPage()).toContain("Fresh bread from 7am");
    await undo(done);
    expect(await frontPage()).toBe(before);
    expect((await readItem(wp.admin, item.ref)).version).toBe(item.version);
    expect((await run(readTemplatePart, { slug: header.slug })).customised).toBe(false);
  });

  it("undo refuses when a person edited the part after the agent, and keeps the person's edit", async () => {
    const { parts } = await run(readTemplatePart, {});
    const slug = (parts.find((p: { area: string }) => p.area === "header") ?? parts[0]).slug as string;
    const markup = "<!-- wp:paragraph -->\n<p>Agent line</p>\n<!-- /wp:paragraph -->";
    const done = await write(await plan(updateTemplatePart, { slug, position: "1", action: "before", markup }));
    const { data: list } = await wp.admin.get<Array<{ slug: string; wp_id: number; content: { raw: string } }>>(
      "/wp/v2/template-parts",
      { context: "edit", _fields: "slug,wp_id,content" },
    );
    const part = list.find((p) => p.slug === slug)!;
    await humanEditPost(wp.local.wpPath, part.wp_id, {
      content: part.content.raw.replace("Agent line", "Person line"),
    });

    await expect(undo(done)).rejects.toBeInstanceOf(StaleItemsError);
    const page = await frontPage();
    expect(page).toContain("Person line");
    expect(page).not.toContain("Agent line");

    const now = await readItem(wp.admin, `template_part:${slug}`);
    await writeItems(wp.admin, [
      { ref: now.ref, expect: now.version, action: "update", fields: { customised: false } },
    ]);
  });

  it("refuses a position that does not exist and markup that would unbalance the part, writing nothing", async () => {
    const { parts } = await run(readTemplatePart, {});
    const slug = parts[0].slug;
    await expect(plan(updateTemplatePart, { slug, position: "99", action: "remove" })).rejects.toMatchObject({
      code: "bad_block",
    });
    await expect(
      plan(updateTemplatePart, { slug, position: "1", action: "replace", markup: "<!-- wp:group --><div>" }),
    ).rejects.toBeInstanceOf(OperationError);
    await expect(
      plan(updateTemplatePart, { slug: "no-such-part", position: "1", action: "remove" }),
    ).rejects.toMatchObject({
      code: "not_found",
    });
  });
});

/** The theme's template WordPress renders the front page with (template hierarchy, first the theme has). */
async function frontTemplate(templates: Array<{ slug: string }>) {
  const showOnFront = (await readItem(wp.admin, "option:show_on_front")).state?.value;
  const order = showOnFront === "page" ? ["front-page", "page", "singular", "index"] : ["front-page", "home", "index"];
  return order.find((slug) => templates.some((t) => t.slug === slug))!;
}

describe("whole templates", () => {
  it("changes one block of the front page's template: a customised template that undo removes, same version", async () => {
    const { templates } = await run(readTemplatePart, {});
    const slug = await frontTemplate(templates);
    expect(templates.find((t: { slug: string }) => t.slug === slug).customised).toBe(false);
    const read = await run(readTemplatePart, { slug, type: "template" });
    expect(read.outline.length).toBeGreaterThan(0);
    const item = await readItem(wp.admin, `template:${slug}`);
    const before = await frontPage();

    const markup = "<!-- wp:paragraph -->\n<p>Whole template news</p>\n<!-- /wp:paragraph -->";
    const planned = await plan(updateTemplatePart, { slug, type: "template", position: "1", action: "after", markup });
    expect(planned.items[0]).toMatchObject({ kind: "template", visible: true, ref: `template:${slug}` });
    const done = await write(planned);
    expect(done[0]!.written.after).toMatchObject({ customised: true, type: "wp_template" });
    expect(await frontPage()).toContain("Whole template news");
    const again = await run(readTemplatePart, { slug, type: "template" });
    expect(again.customised).toBe(true);
    expect(again.outline[1]).toMatchObject({ position: "2", block: "core/paragraph", preview: "Whole template news" });

    await undo(done);
    expect(await frontPage()).toBe(before);
    expect((await readItem(wp.admin, item.ref)).version).toBe(item.version);
    expect((await run(readTemplatePart, { slug, type: "template" })).customised).toBe(false);
  });

  it("undo refuses when a person edited the template after the agent, and keeps the person's edit", async () => {
    const slug = await frontTemplate((await run(readTemplatePart, {})).templates);
    const markup = "<!-- wp:paragraph -->\n<p>Agent template line</p>\n<!-- /wp:paragraph -->";
    const done = await write(
      await plan(updateTemplatePart, { slug, type: "template", position: "1", action: "after", markup }),
    );
    const { data: list } = await wp.admin.get<Array<{ slug: string; wp_id: number; content: { raw: string } }>>(
      "/wp/v2/templates",
      { context: "edit", _fields: "slug,wp_id,content" },
    );
    const template = list.find((t) => t.slug === slug)!;
    await humanEditPost(wp.local.wpPath, template.wp_id, {
      content: template.content.raw.replace("Agent template line", "Person template line"),
    });

    await expect(undo(done)).rejects.toBeInstanceOf(StaleItemsError);
    const page = await frontPage();
    expect(page).toContain("Person template line");
    expect(page).not.toContain("Agent template line");

    const now = await readItem(wp.admin, `template:${slug}`);
    await writeItems(wp.admin, [
      { ref: now.ref, expect: now.version, action: "update", fields: { customised: false } },
    ]);
  });
});

describe("navigation", () => {
  it("saves the shown page list as a menu on the first change, then renames, moves and removes links; undo puts the menus back", async () => {
    // WordPress 6.3+ saves the page list as a navigation menu itself the first time a header shows it; 6.1 does not.
    const existing = await listNavigations(wp.admin);
    const first = await run(readNavigation, {});
    expect(first.links).toEqual([{ position: "1", kind: "page-list" }]);
    const before = await frontPage();

    const added = await write(
      await plan(changeNavigation, { action: "add", label: "Blog", url: "https://news.example/" }),
    );
    expect(added[0]!.item.action).toBe(existing.length === 0 ? "create" : "update");
    const menuId = Number(added[0]!.written.ref.slice("post:".length));
    const links = async () =>
      (await run(readNavigation, {})).links.map((l: any) => `${l.position} ${l.label ?? l.kind}`);
    expect(await links()).toEqual(["1 page-list", "2 Blog"]);
    expect(await frontPage()).toMatch(/<a[^>]*href="https:\/\/news\.example\/"[^>]*>(<span[^>]*>)?Blog/);

    // Later changes edit the saved menu.
    const later = [
      await write(await plan(changeNavigation, { action: "add", label: "Shop", url: "/shop/", to: "1" })),
      await write(await plan(changeNavigation, { action: "rename", position: "3", label: "News" })),
      await write(await plan(changeNavigation, { action: "move", position: "1", to: "3" })),
    ];
    expect(await links()).toEqual(["1 page-list", "2 News", "3 Shop"]);
    later.push(await write(await plan(changeNavigation, { action: "remove", position: "3" })));
    expect(await links()).toEqual(["1 page-list", "2 News"]);
    const page = await frontPage();
    expect(page).toContain(">News<");
    expect(page).not.toContain("/shop/");
    expect((await run(readNavigation, {})).id).toBe(menuId);

    for (const done of later.reverse()) await undo(done);
    expect(await links()).toEqual(["1 page-list", "2 Blog"]);
    await undo(added);
    expect(await listNavigations(wp.admin)).toEqual(existing);
    expect(await frontPage()).toBe(before);
  });

  it("defaults to the menu the header's navigation block names, not just the newest one", async () => {
    const made = [];
    for (const title of ["Named in header", "Newest"]) {
      const { data } = await wp.admin.post<{ id: number }>("/wp/v2/navigation", {
        title,
        status: "publish",
        content: `<!-- wp:navigation-link {"label":"${title}","url":"/x","kind":"custom"} /-->`,
      });
      made.push(data.id);
    }
    expect((await run(readNavigation, {})).id).toBe(made[1]);
    const { parts } = await run(readTemplatePart, {});
    const header = parts.find((p: { area: string }) => p.area === "header");
    const outline = (await run(readTemplatePart, { slug: header.slug })).outline as Array<{
      position: string;
      block: string;
    }>;
    const navigation = outline.find((e) => e.block === "core/navigation");
    const markup = `<!-- wp:navigation {"ref":${made[0]}} /-->`;
    const done = await write(
      await plan(
        updateTemplatePart,
        navigation
          ? { slug: header.slug, position: navigation.position, action: "replace", markup }
          : { slug: header.slug, position: "1", action: "after", markup },
      ),
    );
    const read = await run(readNavigation, {});
    expect(read.id).toBe(made[0]);
    expect(read.menus.find((m: { shown: boolean }) => m.shown).id).toBe(made[0]);
    await undo(done);
    for (const id of made) await wp.admin.delete(`/wp/v2/navigation/${id}`, { force: true });
  });

  it("needs a label or page for a new link and a real position for the others", async () => {
    await expect(plan(changeNavigation, { action: "add", url: "https://x.example/" })).rejects.toMatchObject({
      code: "invalid_input",
    });
    await expect(plan(changeNavigation, { action: "remove", position: "5" })).rejects.toMatchObject({
      code: "bad_block",
    });
    expect(() => changeNavigation.input.parse({ action: "add", label: "x", url: "javascript:alert(1)" })).toThrow();
  });
});

describe("global styles", () => {
  it("merges styles into the owner's, shows the palette it changed, and undo gives back the same version", async () => {
    const read = await run(readGlobalStyles, {});
    expect(read.colors.length).toBeGreaterThan(0);
    const ref = (await listItemRef()) as string;
    const original = await readItem(wp.admin, ref);
    const slug = read.colors[0].slug as string;

    const first = await write(await plan(updateGlobalStyles, { styles: { typography: { lineHeight: "1.93" } } }));
    const second = await write(
      await plan(updateGlobalStyles, { colors: { [slug]: "#123abc" }, styles: { color: { text: "#101010" } } }),
    );
    const now = await run(readGlobalStyles, {});
    expect(now.ownerStyles).toEqual({ typography: { lineHeight: "1.93" }, color: { text: "#101010" } });
    expect(now.colors[0]).toMatchObject({ slug, value: "#123abc" });
    const page = await frontPage();
    expect(page).toMatch(new RegExp(`--wp--preset--color--${slug}:\\s*#123abc`, "i"));
    expect(page).toMatch(/line-height:\s*1\.93/);

    await undo(second);
    await undo(first);
    expect((await readItem(wp.admin, ref)).version).toBe(original.version);
    expect(await run(readGlobalStyles, {})).toEqual(read);
  });

  it("puts custom CSS in the global styles where WordPress has that, and in Additional CSS where it does not", async () => {
    const css = `.wp-site-blocks { scroll-margin-top: 3px; } /* ${Date.now()} */`;
    const planned = await plan(updateGlobalStyles, { css });
    const ref = planned.items[0]!.ref;
    const supported = (await readItem(wp.admin, (await listItemRef()) as string)).state?.css_supported === true;
    expect(ref.startsWith(supported ? "global_styles:" : "custom_css:")).toBe(true);
    const done = await write(planned);
    expect((await run(readGlobalStyles, {})).css).toBe(css);
    expect(await frontPage()).toContain("scroll-margin-top: 3px");
    await undo(done);
    expect(await frontPage()).not.toContain("scroll-margin-top: 3px");
  });

  it("refuses a colour the site's palette does not have, naming the ones it has", async () => {
    await expect(plan(updateGlobalStyles, { colors: { "no-such-colour": "#000" } })).rejects.toMatchObject({
      code: "unknown_preset",
    });
    expect(() => updateGlobalStyles.input.parse({ colors: { primary: "red; } body { display:none" } })).toThrow();
  });
});

describe("style variations and fonts", () => {
  it("applies a style variation: the card names it, the front end takes its palette, undo gives back the version", async () => {
    const read = await run(readGlobalStyles, {});
    const current = Object.fromEntries(read.colors.map((c: { slug: string; value: string }) => [c.slug, c.value]));
    const differs = (v: { colors: Record<string, string> }) =>
      Object.entries(v.colors).find(([slug, color]) => color && current[slug] && current[slug] !== color);
    const variation = read.variations.find(differs);
    expect(variation, "the theme has a style variation with its own palette").toBeDefined();
    const [slug, color] = differs(variation)!;
    const ref = (await listItemRef()) as string;
    const original = await readItem(wp.admin, ref);

    const planned = await plan(updateGlobalStyles, { variation: variation.title });
    expect(planned.items[0]).toMatchObject({ kind: "global_styles", visible: true });
    expect(planned.items[0]!.after).toMatchObject({ "Style variation": variation.title });
    const done = await write(planned);
    expect((await run(readGlobalStyles, {})).variation).toBe(variation.title);
    const escaped = color.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    expect(await frontPage()).toMatch(new RegExp(`--wp--preset--color--${slug}:\\s*${escaped}`, "i"));

    await undo(done);
    expect((await readItem(wp.admin, ref)).version).toBe(original.version);
    expect(await run(readGlobalStyles, {})).toEqual(read);
  });

  it("sets the body and headings font from the theme's families, shown by name and used by the front end", async () => {
    const read = await run(readGlobalStyles, {});
    expect(read.fontFamilies.length).toBeGreaterThan(0);
    const family = read.fontFamilies.at(-1) as { slug: string; name: string };
    const planned = await plan(updateGlobalStyles, { fontFamily: { body: family.slug, headings: family.slug } });
    expect(planned.items[0]!.after).toMatchObject({ "Body font": family.name, "Headings font": family.name });
    const done = await write(planned);
    const css = `var\\(--wp--preset--font-family--${family.slug}\\)`;
    const page = await frontPage();
    expect(page).toMatch(new RegExp(`body\\s*\\{[^}]*font-family:\\s*${css}`));
    expect(page).toMatch(new RegExp(`h1[^{]*\\{[^}]*font-family:\\s*${css}`));
    await undo(done);
    expect(await run(readGlobalStyles, {})).toEqual(read);
    await expect(plan(updateGlobalStyles, { fontFamily: { body: "no-such-font" } })).rejects.toMatchObject({
      code: "unknown_preset",
    });
  });

  it("refuses to undo a variation a person changed afterwards, keeping the person's edit", async () => {
    const read = await run(readGlobalStyles, {});
    const done = await write(await plan(updateGlobalStyles, { variation: read.variations[0].title }));
    const id = await userGlobalStylesId();
    const config = { version: 2, isGlobalStylesUserThemeJSON: true, styles: { color: { text: "#0a0b0c" } } };
    await humanEditPost(wp.local.wpPath, id, { content: JSON.stringify(config) });

    await expect(undo(done)).rejects.toBeInstanceOf(StaleItemsError);
    expect(await frontPage()).toMatch(/color:\s*#0a0b0c/i);
    const now = await readItem(wp.admin, (await listItemRef()) as string);
    await writeItems(wp.admin, [
      { ref: now.ref, expect: now.version, action: "update", fields: { customised: false } },
    ]);
  });
});

/** The id of the active theme's user global styles post, as WordPress resolves it. */
async function userGlobalStylesId() {
  const code = `$_SERVER['HTTP_HOST'] = 'localhost'; define('WP_USE_THEMES', false); require $argv[1] . '/wp-load.php';
    echo WP_Theme_JSON_Resolver::get_user_global_styles_post_id();`;
  const { stdout } = await promisify(execFile)("php", ["-r", code, "--", wp.local.wpPath]);
  return Number(stdout.trim());
}

/** The global styles ref of the active theme, as the site reports it. */
async function listItemRef() {
  const { data } = await wp.admin.get<{ theme: { stylesheet: string } }>("/sitewright/v1/info");
  return `global_styles:${data.theme.stylesheet}`;
}
