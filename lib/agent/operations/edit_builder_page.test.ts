import { describe, expect, it } from "vitest";
import { phpJson } from "@/lib/builders/testing/php-json";
import type { SiteClient } from "@/lib/sites/types";
import editBuilderPage from "./edit_builder_page";

const data = phpJson([
  {
    id: "a1b2c3d",
    elType: "container",
    settings: { _title: "Hero" },
    elements: [
      { id: "h1h1h1h", elType: "widget", settings: { title: "Welcome" }, elements: [], widgetType: "heading" },
      {
        id: "b1b1b1b",
        elType: "widget",
        settings: { text: "Go", link: { url: "/about" } },
        elements: [],
        widgetType: "button",
      },
    ],
    isInner: false,
  },
]);

/** A site as the plugin answers it: its /info (with or without Elementor) and the page as an item. */
function site(builders: Array<{ name: string; version: string }>): SiteClient & { writes: number } {
  const answer = <T>(value: unknown) => Promise.resolve({ status: 200, data: value as T, headers: new Headers() });
  return {
    writes: 0,
    get: <T>(route: string) =>
      route === "/sitewright/v1/info"
        ? answer<T>({ builders })
        : answer<T>({
            items: [
              {
                ref: "elementor:5",
                kind: "elementor",
                exists: true,
                title: "Home",
                state: { data, type: "page", status: "publish" },
                version: "v1",
              },
            ],
          }),
    post() {
      this.writes++;
      return Promise.reject(new Error("a plan writes nothing"));
    },
    put: () => Promise.reject(new Error("no")),
    delete: () => Promise.reject(new Error("no")),
  };
}

const input = {
  id: 5,
  edits: [
    ["set", "h1h1h1h", "title", "Fresh bread daily"],
    ["set", "b1b1b1b", "link.url", "/contact"],
  ],
};

describe("edit_builder_page", () => {
  it("plans both widget changes on the card, by their place on the page, and writes nothing", async () => {
    const client = site([{ name: "elementor", version: "4.2.2" }]);
    const plan = await editBuilderPage.plan!(client, editBuilderPage.input.parse(input));
    const [item] = plan.items;
    expect(item).toMatchObject({ kind: "builder", ref: "elementor:5", visible: true, versionRead: "v1" });
    expect(item?.after).toEqual({
      elements: [
        {
          path: "Hero › Heading",
          elementId: "h1h1h1h",
          widgetType: "heading",
          setting: "title",
          before: "Welcome",
          after: "Fresh bread daily",
        },
        {
          path: "Hero › Button",
          elementId: "b1b1b1b",
          widgetType: "button",
          setting: "link.url",
          before: "/about",
          after: "/contact",
        },
      ],
    });
    expect(item?.change).toEqual({
      ref: "elementor:5",
      expect: "v1",
      action: "update",
      fields: { data: data.replace('"Welcome"', '"Fresh bread daily"').replace('"\\/about"', '"\\/contact"') },
    });
    expect(client.writes).toBe(0);
  });

  it("is refused with the reason where the site (a sandbox copy) does not run Elementor", async () => {
    await expect(editBuilderPage.plan!(site([]), editBuilderPage.input.parse(input))).rejects.toThrow(
      /does not run Elementor.*live mode/,
    );
  });

  it("tells the model which edit it got wrong", async () => {
    const client = site([{ name: "elementor", version: "4.2.2" }]);
    await expect(
      editBuilderPage.plan!(client, editBuilderPage.input.parse({ id: 5, edits: [["move", "h1h1h1h", "a1b2c3d"]] })),
    ).rejects.toThrow(/not one of the forms/);
    await expect(
      editBuilderPage.plan!(client, editBuilderPage.input.parse({ id: 5, edits: [["remove", "zzz"]] })),
    ).rejects.toThrow(/No element zzz/);
  });
});

/** A site with Elementor's kit as the plugin answers it, and the scopes its token holds. */
function kitSite(scopes: string[]): SiteClient {
  const answer = <T>(value: unknown) => Promise.resolve({ status: 200, data: value as T, headers: new Headers() });
  const state = {
    kit: 4,
    saved: false,
    unsaved: ["system_colors"],
    colors: { primary: "#6EC1E4", accent: "#61CE70" },
    fonts: { primary: "Roboto" },
    labels: { primary: "Primary", accent: "Accent" },
    rest: "r",
  };
  const item = { ref: "elementor_kit:active", kind: "elementor_kit", exists: true, title: "Kit", state, version: "k1" };
  return {
    get: <T>(route: string) =>
      route === "/sitewright/v1/info"
        ? answer<T>({
            builders: [{ name: "elementor", version: "4.2.2" }],
            token: { lastFour: "abcd", scopes, capabilities: [] },
          })
        : answer<T>({ items: [item] }),
    post: () => Promise.reject(new Error("a plan writes nothing")),
    put: () => Promise.reject(new Error("no")),
    delete: () => Promise.reject(new Error("no")),
  };
}

describe("edit_builder_page on Elementor's kit", () => {
  const kitInput = (edits: string[][], id = 4) => editBuilderPage.input.parse({ id, edits });

  it("plans the named tokens only, as a design item the card shows by token name", async () => {
    const plan = await editBuilderPage.plan!(
      kitSite(["design:write"]),
      kitInput([
        ["color", "primary", "#c0ffee"],
        ["font", "primary", "Lora"],
      ]),
    );
    expect(plan.items[0]).toMatchObject({
      kind: "global_styles",
      visible: true,
      before: { "Colour Primary": "#6EC1E4", "Font Primary": "Roboto" },
      after: { "Colour Primary": "#c0ffee", "Font Primary": "Lora" },
      change: {
        ref: "elementor_kit:active",
        expect: "k1",
        fields: { colors: { primary: "#c0ffee" }, fonts: { primary: "Lora" } },
      },
    });
  });

  it("says how to grant design changes, names the kit's id and tokens, and keeps kit and page edits apart", async () => {
    await expect(
      editBuilderPage.plan!(kitSite(["content:write"]), kitInput([["color", "primary", "#000000"]])),
    ).rejects.toThrow(/permission/);
    const client = kitSite(["design:write"]);
    await expect(editBuilderPage.plan!(client, kitInput([["color", "primary", "#000000"]], 9))).rejects.toThrow(
      /use id 4/,
    );
    await expect(editBuilderPage.plan!(client, kitInput([["color", "nope", "#000000"]]))).rejects.toThrow(
      /no color nope; its colors: primary, accent/,
    );
    await expect(
      editBuilderPage.plan!(
        client,
        kitInput([
          ["color", "primary", "#000000"],
          ["set", "h1h1h1h", "title", "x"],
        ]),
      ),
    ).rejects.toThrow(/separate calls/);
  });
});
