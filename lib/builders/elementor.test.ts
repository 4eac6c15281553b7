import { describe, expect, it } from "vitest";
import { expectationFor } from "@/lib/verification/expectations";
import { applyEdits, BuilderEditError } from "./elementor-edit";
import { outlineOf, readElementorPage } from "./elementor-tree";
import { phpJson } from "./testing/php-json";

const hero = [
  {
    id: "a1b2c3d",
    elType: "container",
    settings: { _title: "Hero", flex_direction: "column" },
    elements: [
      {
        id: "h1h1h1h",
        elType: "widget",
        settings: { title: "Café / “Home”", header_size: "h1" },
        elements: [],
        widgetType: "heading",
      },
      {
        id: "b1b1b1b",
        elType: "widget",
        settings: {
          text: "Get in touch",
          link: { url: "/about", is_external: "", nofollow: "", custom_attributes: "" },
        },
        elements: [],
        widgetType: "button",
      },
      {
        id: "l1l1l1l",
        elType: "widget",
        settings: {
          icon_list: [
            { text: "Fresh bread", _id: "x1" },
            { text: "Coffee", link: { url: "/menu" }, _id: "x2" },
          ],
        },
        elements: [],
        widgetType: "icon-list",
      },
    ],
    isInner: false,
  },
  { id: "f0f0f0f", elType: "container", settings: [], elements: [], isInner: false },
];

describe("Elementor pages as the agent reads them", () => {
  it("names each element by its place on the page and shows what a visitor reads", () => {
    const page = readElementorPage(phpJson(hero));
    expect(page.byId.get("h1h1h1h")?.path).toBe("Hero › Heading");
    expect(page.byId.get("f0f0f0f")?.path).toBe("Section");
    const outline = outlineOf(page);
    expect(outline).toContain('[h1h1h1h] heading title="Café / “Home”"');
    expect(outline).toContain('[b1b1b1b] button text="Get in touch" link.url="/about"');
    expect(outline).toContain('icon_list.1.text="Coffee" icon_list.1.link.url="/menu"');
    expect(outline).not.toContain("header_size");
  });
});

describe("editing an Elementor page by element id", () => {
  const raw = phpJson(hero);

  it("changes a heading and a button link and nothing else, spelled as PHP spells it", () => {
    const { raw: next, rows } = applyEdits(raw, [
      { op: "set", elementId: "h1h1h1h", setting: "title", value: "Fresh / “bread” daily" },
      { op: "set", elementId: "b1b1b1b", setting: "link.url", value: "/contact" },
    ]);
    expect(rows).toEqual([
      {
        path: "Hero › Heading",
        elementId: "h1h1h1h",
        widgetType: "heading",
        setting: "title",
        before: "Café / “Home”",
        after: "Fresh / “bread” daily",
      },
      {
        path: "Hero › Button",
        elementId: "b1b1b1b",
        widgetType: "button",
        setting: "link.url",
        before: "/about",
        after: "/contact",
      },
    ]);
    expect(next).toBe(phpJson(JSON.parse(next)));
    expect(next).toBe(
      raw
        .replace("Caf\\u00e9 \\/ \\u201cHome\\u201d", "Fresh \\/ \\u201cbread\\u201d daily")
        .replace('"\\/about"', '"\\/contact"'),
    );
  });

  it("adds a setting that was not there, also in PHP's empty settings []", () => {
    const { raw: next } = applyEdits(raw, [
      { op: "set", elementId: "h1h1h1h", setting: "link.url", value: "/x" },
      { op: "set", elementId: "f0f0f0f", setting: "_title", value: "Footer" },
    ]);
    const data = JSON.parse(next);
    expect(data[0].elements[0].settings.link).toEqual({ url: "/x" });
    expect(data[1].settings).toEqual({ _title: "Footer" });
    expect(next).toBe(phpJson(data));
  });

  it("adds, duplicates, moves and removes elements, with fresh ids", () => {
    const { raw: next, rows } = applyEdits(raw, [
      { op: "add", alias: "new1", to: "f0f0f0f", widgetType: "heading" },
      { op: "set", elementId: "new1", setting: "title", value: "Visit us" },
      { op: "duplicate", elementId: "b1b1b1b" },
      { op: "move", elementId: "l1l1l1l", to: "f0f0f0f", position: 0 },
      { op: "remove", elementId: "h1h1h1h" },
    ]);
    const data = JSON.parse(next);
    expect(data[0].elements.map((e: { widgetType: string }) => e.widgetType)).toEqual(["button", "button"]);
    expect(data[0].elements[1].id).not.toBe("b1b1b1b");
    expect(data[1].elements.map((e: { widgetType: string }) => e.widgetType)).toEqual(["icon-list", "heading"]);
    expect(data[1].elements[1].settings).toEqual({ title: "Visit us" });
    expect(rows.map((row) => row.path)).toEqual([
      "Section › Heading",
      "Section › Heading",
      "Hero › Button",
      "Hero › Icon list",
      "Hero › Heading",
    ]);
    expect(next).toBe(phpJson(data));
  });

  it("refuses what Elementor could not show: unknown ids, a widget at the page's top level, a whole object as a value", () => {
    expect(() => applyEdits(raw, [{ op: "remove", elementId: "nope" }])).toThrow(BuilderEditError);
    expect(() => applyEdits(raw, [{ op: "move", elementId: "h1h1h1h", to: "page", position: 0 }])).toThrow(
      /cannot be placed/,
    );
    expect(() => applyEdits(raw, [{ op: "set", elementId: "b1b1b1b", setting: "link", value: "/x" }])).toThrow(
      /link.url/,
    );
    expect(() => applyEdits(raw, [{ op: "move", elementId: "a1b2c3d", to: "a1b2c3d", position: 0 }])).toThrow();
  });

  it("keeps a page written in another JSON style in that style", () => {
    const pretty = JSON.stringify(hero, null, 1);
    const { raw: next } = applyEdits(pretty, [
      { op: "set", elementId: "b1b1b1b", setting: "text", value: "Écrivez / nous" },
    ]);
    expect(next).toBe(pretty.replace('"Get in touch"', '"Écrivez / nous"'));
  });
});

describe("the look at the live page after an Elementor write", () => {
  it("expects the new heading and the new link on the page itself, and the old heading gone", () => {
    const before = phpJson(hero);
    const { raw: after } = applyEdits(before, [
      { op: "set", elementId: "h1h1h1h", setting: "title", value: "Bread baked every morning" },
      { op: "set", elementId: "b1b1b1b", setting: "link.url", value: "/contact" },
    ]);
    const state = (data: string, status = "publish") => ({ data, status, type: "page" });
    const expectation = expectationFor({
      ref: "elementor:5",
      kind: "builder",
      title: "Home",
      from: state(before),
      to: state(after),
    });
    expect(expectation).toMatchObject({
      page: "item",
      present: ["Bread baked every morning"],
      absent: ['Café / "Home"'],
      sourcePresent: ["/contact"],
    });
    const undo = expectationFor({
      ref: "elementor:5",
      kind: "builder",
      title: "Home",
      from: state(after),
      to: state(before),
    });
    expect(undo?.present).toEqual(['Café / "Home"']);
    expect(
      expectationFor({
        ref: "elementor:5",
        kind: "builder",
        title: "Home",
        from: state(before, "draft"),
        to: state(after, "draft"),
      }),
    ).toBeNull();
  });
});
