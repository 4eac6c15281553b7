import { describe, expect, it } from "vitest";
import { resetEnvForTests } from "@/lib/env";
import {
  allowedOperations,
  configuredAllowlist,
  DEFAULT_OPERATIONS,
  grantFromSiteInfo,
  lockedOperations,
} from "./registry";
import { ALL_OPERATIONS } from "./operations";

const everything = {
  blockTheme: false,
  scopes: ["site:read", "content:read", "content:write", "media:write", "design:write", "settings:write"],
  capabilities: null,
  features: ["custom_css", "terms", "media_alt", "seo", "media_upload", "builder:elementor"],
};
const names = (grant: Parameters<typeof allowedOperations>[0], allowlist?: string[]) =>
  allowedOperations(grant, allowlist).operations.map((op) => op.name);

describe("the operation allowlist", () => {
  it("offers Elementor editing only where the plugin reports it edits Elementor pages", () => {
    const info = (builders: unknown) => ({ features: [], token: { scopes: everything.scopes }, builders });
    expect(names(grantFromSiteInfo(info([{ name: "elementor", version: "4.2.2" }])))).toContain("edit_builder_page");
    expect(names(grantFromSiteInfo(info([])))).not.toContain("edit_builder_page");
    expect(names(grantFromSiteInfo(info(undefined)))).not.toContain("edit_builder_page");
  });

  it("offers every operation by default, publishing and trashing included (each waits for the owner's click)", () => {
    const allowed = names(everything, configuredAllowlist(undefined));
    // view_image only when the operator says the model can see images (below).
    expect(allowed).toEqual(ALL_OPERATIONS.filter((op) => op.theme !== "block" && !op.vision).map((op) => op.name));
    expect(allowed).toEqual(expect.arrayContaining(["publish_page", "trash_page", "change_menu"]));
    expect(DEFAULT_OPERATIONS).toContain("replace_block");
  });

  it("offers view_image only when AGENT_VISION says the model can see images, even if AGENT_OPERATIONS names it", () => {
    try {
      for (const [vision, offered] of [
        ["false", false],
        ["true", true],
      ] as const) {
        resetEnvForTests({ AGENT_VISION: vision });
        expect(names(everything, configuredAllowlist(undefined)).includes("view_image")).toBe(offered);
        expect(names(everything, configuredAllowlist(["view_image"]))).toEqual(offered ? ["view_image"] : []);
      }
    } finally {
      resetEnvForTests({ AGENT_VISION: undefined });
    }
  });

  it("offers the v1.2 reach operations only where the plugin reports them: SEO only with a writable SEO plugin", () => {
    const without = names({ ...everything, features: ["custom_css"] }, configuredAllowlist(undefined));
    for (const name of ["list_terms", "save_term", "set_post_terms", "update_media", "update_seo"])
      expect(without).not.toContain(name);
    expect(without).toContain("schedule_post"); // a post field every plugin version writes
    const noSeo = names(
      { ...everything, features: ["custom_css", "terms", "media_alt"] },
      configuredAllowlist(undefined),
    );
    expect(noSeo).toEqual(expect.arrayContaining(["list_terms", "save_term", "set_post_terms", "update_media"]));
    expect(noSeo).not.toContain("update_seo");
  });

  it("offers exactly the operations AGENT_OPERATIONS names, ignoring unknown names", () => {
    expect(names(everything, configuredAllowlist(["read_page", "trash_page", "delete_everything"]))).toEqual([
      "read_page",
      "trash_page",
    ]);
  });

  it("offers add_image only when the token may also upload files (media:write lends upload_files)", () => {
    const contentOnly = {
      ...everything,
      scopes: ["site:read", "content:read", "content:write"],
      capabilities: ["edit_pages"],
    };
    const { excluded } = allowedOperations(contentOnly, ["add_image"]);
    expect(excluded.find((e) => e.operation === "add_image")).toEqual({ operation: "add_image", reason: "capability" });
    const both = { ...contentOnly, capabilities: ["edit_pages", "upload_files"] };
    expect(names(both, ["add_image"])).toEqual(["add_image"]);
    expect(names({ ...both, features: ["custom_css"] }, ["add_image"])).toEqual([]);
  });

  it("drops operations the token's scopes do not cover", () => {
    const readOnly = { scopes: ["site:read", "content:read"], capabilities: null, features: [], blockTheme: false };
    const allowed = names(
      readOnly,
      ALL_OPERATIONS.map((op) => op.name),
    );
    expect(allowed).toEqual([
      "get_site_info",
      "list_pages",
      "list_posts",
      "read_page",
      "list_media",
      "read_menus",
      "read_site_settings",
    ]);
    expect(allowedOperations(readOnly).excluded).toContainEqual({ operation: "update_page", reason: "scope" });
  });

  it("locks the operations only a missing scope holds back, for a site that fits them", () => {
    const noDesign = {
      scopes: ["site:read", "content:read", "content:write"],
      capabilities: ["read", "edit_posts"],
      features: ["custom_css"],
      blockTheme: true,
    };
    const all = ALL_OPERATIONS.map((op) => op.name);
    const locked = lockedOperations(noDesign, all).map((op) => op.name);
    // The block theme's design operations and the settings one; never a classic-theme operation on a block theme.
    expect(locked).toEqual(
      expect.arrayContaining(["update_global_styles", "update_template_part", "set_site_identity"]),
    );
    expect(locked).not.toContain("change_menu");
    expect(locked).not.toContain("update_page");
    expect(lockedOperations(noDesign, ["read_page"])).toEqual([]);
    expect(lockedOperations({ ...noDesign, scopes: null }, all)).toEqual([]);
    expect(lockedOperations({ ...everything, blockTheme: true }, all)).toEqual([]);
  });

  it("falls back to reading only when the site never reported its scopes", () => {
    expect(
      names({ scopes: null, capabilities: null, features: [], blockTheme: null }).every(
        (name) => ALL_OPERATIONS.find((op) => op.name === name)!.risk === "read",
      ),
    ).toBe(true);
  });

  it("drops operations whose WordPress capabilities the token does not lend", () => {
    const grant = { scopes: everything.scopes, capabilities: ["read", "edit_pages"], features: [], blockTheme: false };
    const result = allowedOperations(grant);
    expect(result.excluded).toContainEqual({ operation: "read_menus", reason: "capability" });
    expect(result.excluded).toContainEqual({ operation: "read_site_settings", reason: "capability" });
    expect(names(grant)).toContain("update_page");
  });

  it("offers custom CSS only when the plugin reports that feature", () => {
    expect(names(everything)).toContain("update_custom_css");
    expect(allowedOperations({ ...everything, features: [] }).excluded).toContainEqual({
      operation: "update_custom_css",
      reason: "plugin_feature",
    });
  });

  it("reads scopes and capabilities from the plugin's info", () => {
    expect(
      grantFromSiteInfo({ token: { scopes: ["site:read"], capabilities: ["read"] }, features: ["custom_css"] }),
    ).toEqual({
      scopes: ["site:read"],
      capabilities: ["read"],
      features: ["custom_css"],
      blockTheme: null,
    });
    expect(grantFromSiteInfo(null)).toEqual({ scopes: null, capabilities: null, features: [], blockTheme: null });
  });

  describe("offers the design operations that fit the site's theme, never both families", () => {
    // The two shapes of the plugin's /sitewright/v1/info: only `theme.isBlockTheme` differs.
    const info = (isBlockTheme: boolean) => ({
      theme: { name: "Any", stylesheet: "any", template: "any", version: "1", isBlockTheme },
      features: ["custom_css"],
      token: { scopes: everything.scopes, capabilities: null },
    });
    const block = [
      "read_navigation",
      "change_navigation",
      "read_global_styles",
      "update_global_styles",
      "read_template_part",
      "update_template_part",
    ];
    const classic = ["read_menus", "change_menu", "update_custom_css"];

    it("a block theme gets navigation, global styles and template parts, not classic menus or Additional CSS", () => {
      const result = allowedOperations(grantFromSiteInfo(info(true)));
      const offered = result.operations.map((op) => op.name);
      expect(offered).toEqual(expect.arrayContaining(block));
      for (const name of classic) {
        expect(offered).not.toContain(name);
        expect(result.excluded).toContainEqual({ operation: name, reason: "theme" });
      }
    });

    it("a classic theme gets menus and Additional CSS, not the block operations", () => {
      const result = allowedOperations(grantFromSiteInfo(info(false)));
      const offered = result.operations.map((op) => op.name);
      expect(offered).toEqual(expect.arrayContaining(classic));
      for (const name of block) expect(result.excluded).toContainEqual({ operation: name, reason: "theme" });
    });

    it("a plugin that does not report the theme is treated as classic", () => {
      const { theme: _theme, ...older } = info(true);
      const offered = names(grantFromSiteInfo(older));
      expect(offered).toContain("change_menu");
      expect(offered).not.toContain("change_navigation");
    });

    it("every design operation belongs to exactly one family", () => {
      const design = ALL_OPERATIONS.filter((op) => op.theme).map((op) => op.name);
      expect(design.sort()).toEqual([...block, ...classic].sort());
    });
  });
});
