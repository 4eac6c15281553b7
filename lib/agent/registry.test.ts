import { describe, expect, it } from "vitest";
import { allowedOperations, configuredAllowlist, DEFAULT_OPERATIONS, grantFromSiteInfo } from "./registry";
import { ALL_OPERATIONS } from "./operations";

const everything = { scopes: ["site:read", "content:read", "content:write", "media:write", "design:write", "settings:write"], capabilities: null, features: ["custom_css"] };
const names = (grant: Parameters<typeof allowedOperations>[0], allowlist?: string[]) => allowedOperations(grant, allowlist).operations.map((op) => op.name);

describe("the operation allowlist", () => {
  it("offers every read and write operation and no destructive one by default", () => {
    const allowed = names(everything, configuredAllowlist(undefined));
    expect(allowed).toEqual(ALL_OPERATIONS.filter((op) => op.risk !== "destructive").map((op) => op.name));
    expect(allowed).not.toContain("trash_page");
    expect(DEFAULT_OPERATIONS).toContain("replace_block");
  });

  it("offers exactly the operations AGENT_OPERATIONS names, ignoring unknown names", () => {
    expect(names(everything, configuredAllowlist(["read_page", "trash_page", "delete_everything"]))).toEqual(["read_page", "trash_page"]);
  });

  it("drops operations the token's scopes do not cover", () => {
    const readOnly = { scopes: ["site:read", "content:read"], capabilities: null, features: [] };
    const allowed = names(readOnly, ALL_OPERATIONS.map((op) => op.name));
    expect(allowed).toEqual(["get_site_info", "list_pages", "list_posts", "read_page", "list_media", "read_menus", "read_site_settings"]);
    expect(allowedOperations(readOnly).excluded).toContainEqual({ operation: "update_page", reason: "scope" });
  });

  it("falls back to reading only when the site never reported its scopes", () => {
    expect(names({ scopes: null, capabilities: null, features: [] }).every((name) => ALL_OPERATIONS.find((op) => op.name === name)!.risk === "read")).toBe(true);
  });

  it("drops operations whose WordPress capabilities the token does not lend", () => {
    const grant = { scopes: everything.scopes, capabilities: ["read", "edit_pages"], features: [] };
    const result = allowedOperations(grant);
    expect(result.excluded).toContainEqual({ operation: "read_menus", reason: "capability" });
    expect(result.excluded).toContainEqual({ operation: "read_site_settings", reason: "capability" });
    expect(names(grant)).toContain("update_page");
  });

  it("offers custom CSS only when the plugin reports that feature", () => {
    expect(names(everything)).toContain("update_custom_css");
    expect(allowedOperations({ ...everything, features: [] }).excluded).toContainEqual({ operation: "update_custom_css", reason: "plugin_feature" });
  });

  it("reads scopes and capabilities from the plugin's info", () => {
    expect(grantFromSiteInfo({ token: { scopes: ["site:read"], capabilities: ["read"] }, features: ["custom_css"] })).toEqual({
      scopes: ["site:read"],
      capabilities: ["read"],
      features: ["custom_css"],
    });
    expect(grantFromSiteInfo(null)).toEqual({ scopes: null, capabilities: null, features: [] });
  });
});
