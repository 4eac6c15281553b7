import { describe, expect, it } from "vitest";
import {
  insertItem,
  linkMarkup,
  moveItem,
  navigationEntries,
  removeItem,
  renameItem,
  serializeAttributes,
} from "./navigation";

const link = (label: string, url = `/${label.toLowerCase()}`) =>
  `<!-- wp:navigation-link {"label":"${label}","url":"${url}","kind":"custom"} /-->`;
const submenu = (label: string, inner: string) =>
  `<!-- wp:navigation-submenu {"label":"${label}","url":"/${label.toLowerCase()}","kind":"custom"} -->\n${inner}\n<!-- /wp:navigation-submenu -->`;
const NAV = [link("Home"), submenu("Shop", [link("Bread"), link("Cakes")].join("\n")), link("About")].join("\n");
const labels = (content: string) => navigationEntries(content).map((e) => `${e.position} ${e.label ?? e.kind}`);

describe("navigation links", () => {
  it("lists links with nested positions, labels as the text the owner gave, and page ids", () => {
    const content = `${NAV}\n<!-- wp:page-list /-->\n${linkMarkup({ label: "Tea & <b>cake</b>", url: "https://x.test/t", page: { id: 7, type: "page" } })}`;
    expect(navigationEntries(content)).toEqual([
      { position: "1", kind: "link", label: "Home", url: "/home" },
      { position: "2", kind: "submenu", label: "Shop", url: "/shop" },
      { position: "2.1", kind: "link", label: "Bread", url: "/bread" },
      { position: "2.2", kind: "link", label: "Cakes", url: "/cakes" },
      { position: "3", kind: "link", label: "About", url: "/about" },
      { position: "4", kind: "page-list" },
      { position: "5", kind: "link", label: "Tea & <b>cake</b>", url: "https://x.test/t", id: 7 },
    ]);
  });

  it("writes attributes the way WordPress serializes them, so nothing can close the comment", () => {
    expect(serializeAttributes({ label: 'a--><script>"&' })).toBe(
      '{"label":"a\\u002d\\u002d\\u003e\\u003cscript\\u003e\\u0022\\u0026"}',
    );
    const markup = linkMarkup({ label: "<x> & y", url: "https://e.test/?a=1&b=2" });
    expect(markup.slice("<!-- ".length, -" /-->".length)).not.toMatch(/--|<|>/);
    expect(navigationEntries(markup)[0]).toMatchObject({ label: "<x> & y", url: "https://e.test/?a=1&b=2" });
  });

  it("adds at the end, at a position, and as the first link of an empty submenu", () => {
    const added = insertItem(NAV, link("Contact"));
    expect(labels(added).at(-1)).toBe("4 Contact");
    expect(labels(insertItem(NAV, link("Contact"), "2"))).toContain("2 Contact");
    expect(labels(insertItem(NAV, link("Rye"), "2.3"))).toContain("2.3 Rye");
    const empty = `<!-- wp:navigation-submenu {"label":"Empty","url":"/e","kind":"custom"} /-->`;
    expect(labels(insertItem(empty, link("First"), "1.1"))).toEqual(["1 Empty", "1.1 First"]);
    expect(() => insertItem(NAV, link("X"), "9")).toThrow(/past the end/);
    expect(() => insertItem(NAV, link("X"), "1.1")).toThrow(/no submenu at position 1/);
  });

  it("renames, keeping every other attribute and byte", () => {
    const renamed = renameItem(NAV, "2.2", "Cakes & tarts");
    expect(labels(renamed)).toContain("2.2 Cakes & tarts");
    expect(renamed.replace(/\{"label":"Cakes \\u0026amp; tarts"/, '{"label":"Cakes"')).toBe(NAV);
  });

  it("moves to the position it should end up at, also into and out of submenus", () => {
    expect(labels(moveItem(NAV, "1", "3"))).toEqual(["1 Shop", "1.1 Bread", "1.2 Cakes", "2 About", "3 Home"]);
    expect(labels(moveItem(NAV, "3", "1"))[0]).toBe("1 About");
    expect(labels(moveItem(NAV, "1", "2.2"))).toEqual(["1 Shop", "1.1 Bread", "1.2 Home", "1.3 Cakes", "2 About"]);
    expect(labels(moveItem(NAV, "2.1", "1"))).toEqual(["1 Bread", "2 Home", "3 Shop", "3.1 Cakes", "4 About"]);
    expect(() => moveItem(NAV, "2", "2.1")).toThrow(/into itself/);
  });

  it("removes one item and keeps the rest byte for byte", () => {
    expect(removeItem(NAV, "2.1")).toBe(NAV.replace(`\n${link("Bread")}`, ""));
    expect(labels(removeItem(NAV, "2"))).toEqual(["1 Home", "2 About"]);
    expect(() => removeItem(NAV, "7")).toThrow(/no link at position 7/);
  });
});
