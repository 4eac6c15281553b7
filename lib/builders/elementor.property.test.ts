/**
 * Write = plan for Elementor pages, as a property on the real plugin (docs/page-builders.md): 30 generated pages of
 * varied layouts (containers, sections with columns, nested containers; headings, text, buttons, images, icon lists,
 * unknown widgets; text with quotes, slashes, backslashes, accents, emoji and markup), stored as Elementor stores
 * them (wp_slash(wp_json_encode())), each given a random text edit planned by the agent's code and written through
 * the items route: the site stores exactly the plan, only that setting's value differs, every other byte and meta
 * stays, and undo gives the original bytes and version back.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planBuilderEdits, readBuilderPage } from "@/lib/agent/builder";
import { reverseChange } from "@/lib/changes/plan";
import { readItem, writeItems } from "@/lib/sites/items";
import { type AgentTestSite, startAgentSite } from "@/test/agent-site";
import { runAsAdmin } from "@/test/wordpress";
import { type ElementorPage, visibleSettings } from "./elementor-tree";
import { entryOf, type JsonNode } from "./json-spans";
import { encodeString } from "./php-json";

let wp: AgentTestSite;

beforeAll(async () => {
  wp = await startAgentSite();
}, 120_000);

afterAll(async () => {
  await wp?.local.stop();
});

const text = fc
  .array(
    fc.constantFrom(
      "Open",
      "daily",
      "9/5",
      "café",
      "“quoted”",
      'say "hi"',
      "back\\slash",
      "<b>bold</b>",
      "🍞",
      "—",
      "&amp;",
      "it's",
    ),
    {
      minLength: 1,
      maxLength: 5,
    },
  )
  .map((words) => words.join(" "));

const widget = fc.oneof(
  text.map((title) => ({ widgetType: "heading", settings: { title, header_size: "h2" } })),
  text.map((t) => ({ widgetType: "text-editor", settings: { editor: `<p>${t}</p>` } })),
  fc.tuple(text, fc.constantFrom("/about", "https://example.com/a/b?c=1&d=2", "#top")).map(([label, url]) => ({
    widgetType: "button",
    settings: { text: label, link: { url, is_external: "", nofollow: "", custom_attributes: "" }, size: "sm" },
  })),
  text.map((caption) => ({
    widgetType: "image",
    settings: { image: { url: "https://example.com/i.jpg", id: 12 }, caption },
  })),
  fc.array(text, { minLength: 1, maxLength: 3 }).map((items) => ({
    widgetType: "icon-list",
    settings: {
      icon_list: items.map((t, i) => ({
        text: t,
        selected_icon: { value: "fas fa-check", library: "fa-solid" },
        _id: `i${i}`,
      })),
    },
  })),
  text.map((t) => ({ widgetType: "acme-widget", settings: { headline_text: t, columns: 3 } })),
  fc.constant({ widgetType: "spacer", settings: [] as unknown }),
);

const section = fc.record({
  layout: fc.constantFrom("container", "section", "nested"),
  title: fc.option(text, { nil: undefined }),
  widgets: fc.array(widget, { minLength: 1, maxLength: 4 }),
});

/** Elementor's element list for the generated sections, with unique 7-character ids. */
function elementsOf(
  sections: Array<{ layout: string; title?: string; widgets: Array<{ widgetType: string; settings: unknown }> }>,
) {
  let next = 0x1000000;
  const id = () => (next++).toString(16);
  const widgets = (list: Array<{ widgetType: string; settings: unknown }>) =>
    list.map((w) => ({ id: id(), elType: "widget", settings: w.settings, elements: [], widgetType: w.widgetType }));
  return sections.map((s) => {
    const settings = s.title ? { _title: s.title, gap: "20" } : { gap: "20" };
    if (s.layout === "section")
      return {
        id: id(),
        elType: "section",
        settings,
        elements: [
          { id: id(), elType: "column", settings: { _column_size: 100 }, elements: widgets(s.widgets), isInner: false },
        ],
        isInner: false,
      };
    const inner =
      s.layout === "nested"
        ? [{ id: id(), elType: "container", settings: [], elements: widgets(s.widgets), isInner: true }]
        : widgets(s.widgets);
    return { id: id(), elType: "container", settings, elements: inner, isInner: false };
  });
}

/** Stores the pages as Elementor stores them, in one PHP run (a busy machine pays for each WordPress start). */
async function elementorPages(pages: unknown[]): Promise<number[]> {
  return runAsAdmin<number[]>(
    wp.local.wpPath,
    `$ids = array();
     foreach ($args as $elements) {
       $id = wp_insert_post(array('post_type' => 'page', 'post_status' => 'publish', 'post_title' => 'Builder'));
       update_post_meta($id, '_elementor_edit_mode', 'builder');
       update_post_meta($id, '_elementor_template_type', 'wp-page');
       update_post_meta($id, '_elementor_version', '4.2.2');
       update_post_meta($id, '_elementor_page_settings', array('hide_title' => 'yes'));
       update_post_meta($id, '_elementor_data', wp_slash(wp_json_encode($elements)));
       $ids[] = $id;
     }
     echo json_encode($ids);`,
    pages,
  );
}

/** Every meta of each page but its Elementor data. */
const metaOf = (ids: number[]) =>
  runAsAdmin<Array<Record<string, string[]>>>(
    wp.local.wpPath,
    "echo json_encode(array_map(function ($id) { wp_cache_delete($id, 'post_meta'); $meta = get_post_meta($id); unset($meta['_elementor_data']); return $meta; }, $args));",
    ids,
  );

/** The page's elements with one setting set by hand (what the edit must mean). */
function withSetting(data: string, elementId: string, path: string, value: string): unknown {
  const elements = JSON.parse(data) as Array<{ id: string; settings: Record<string, unknown>; elements: unknown[] }>;
  const walk = (list: typeof elements): void => {
    for (const element of list) {
      if (element.id === elementId) {
        const parts = path.split(".");
        let holder = element.settings;
        for (const part of parts.slice(0, -1)) holder = holder[part] as Record<string, unknown>;
        holder[parts.at(-1)!] = value;
      }
      walk(element.elements as typeof list);
    }
  };
  walk(elements);
  return elements;
}

/** The offsets of a setting's value in the stored JSON. */
function valueSpan(page: ElementorPage, elementId: string, path: string): { start: number; end: number } {
  let node: JsonNode | undefined = page.byId.get(elementId)?.settings;
  for (const part of path.split(".")) {
    node = node?.type === "array" ? node.items[Number(part)] : entryOf(node, part);
  }
  if (!node) throw new Error(`no ${path} on ${elementId}`);
  return node;
}

const cases = fc.tuple(fc.array(section, { minLength: 1, maxLength: 4 }), fc.nat(), text);

describe("write = plan for Elementor pages on the real plugin", () => {
  it("across 30 generated pages, a random text edit changes only its setting, byte for byte, and undo gives each page back", async () => {
    const samples = fc.sample(cases, { numRuns: 30, seed: 36 });
    const ids = await elementorPages(samples.map(([sections]) => elementsOf(sections)));
    const metaBefore = await metaOf(ids);
    let edited = 0;
    for (const [index, [, pick, newText]] of samples.entries()) {
      const id = ids[index]!;
      const current = await readBuilderPage(wp.admin, id);
      const original = current.page.raw;
      const editable = [...current.page.byId.values()].flatMap((element) =>
        visibleSettings(element)
          .filter(([path, value]) => typeof value === "string" && !/url$/.test(path))
          .map(([path, value]) => ({ element, path, value: value as string })),
      );
      const target = editable[pick % editable.length];
      if (!target || target.value === newText) continue;
      const edit = { op: "set" as const, elementId: target.element.id, setting: target.path, value: newText };
      const planned = planBuilderEdits(current, [edit], "test");
      const data = planned.change.fields?.data as string;
      expect(JSON.parse(data)).toEqual(withSetting(original, target.element.id, target.path, newText));
      // Every byte but the value's own is the original's; the value is spelled as PHP spells it.
      const span = valueSpan(current.page, target.element.id, target.path);
      expect(data).toBe(original.slice(0, span.start) + encodeString(newText) + original.slice(span.end));

      const [written] = await writeItems(wp.admin, [planned.change]);
      expect(written?.after?.data).toBe(data); // read back by the plugin after the write

      const reverse = reverseChange({
        ref: `elementor:${id}`,
        action: "update",
        beforeState: current.item.state,
        afterState: written!.after,
        versionAfter: written!.version,
      });
      const [undone] = await writeItems(wp.admin, [reverse]);
      expect(undone?.after?.data).toBe(original);
      expect(undone?.version).toBe(current.item.version);
      edited++;
    }
    expect(edited).toBeGreaterThanOrEqual(25);
    expect(await metaOf(ids)).toEqual(metaBefore);
    expect((await readItem(wp.admin, `elementor:${ids[0]}`)).state?.data).toBe(
      (await readBuilderPage(wp.admin, ids[0]!)).page.raw,
    );
  }, 300_000);
});
