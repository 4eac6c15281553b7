import { describe, expect, it } from "vitest";
import { SiteRequestError } from "./client";
import { parsePluginInfo, parsePreflight } from "./plugin-schemas";

const info = {
  name: "Site",
  homeUrl: "https://example.com",
  restUrl: "https://example.com/wp-json/",
  wordpress: "6.9.1",
  php: "8.2.1",
  theme: { name: "Twenty Twenty-Five", stylesheet: "twentytwentyfive", isBlockTheme: true },
  pageBuilder: "classic-editor",
  features: ["custom_css"],
  token: { lastFour: "abcd", scopes: ["site:read"], createdAt: null, capabilities: ["read"] },
};

describe("parsing what the plugin answers", () => {
  it("reads /info, keeping fields a newer plugin adds", () => {
    const parsed = parsePluginInfo({ ...info, somethingNew: 1 });
    expect(parsed.theme.isBlockTheme).toBe(true);
    expect(parsed.somethingNew).toBe(1);
    expect(parsePluginInfo({ ...info, features: undefined }).features).toEqual([]);
  });

  it("refuses an /info without the theme kind or the token as a bad_response naming the field", () => {
    for (const broken of [
      { ...info, theme: { name: "x", stylesheet: "x" } },
      { ...info, token: undefined },
      { ...info, features: "custom_css" },
      "<html>",
    ]) {
      const error = (() => {
        try {
          parsePluginInfo(broken);
        } catch (caught) {
          return caught;
        }
      })();
      expect(error).toBeInstanceOf(SiteRequestError);
      expect(error).toMatchObject({ kind: "bad_response" });
    }
  });

  it("reads /preflight and refuses an unknown check status", () => {
    const checks = [{ id: "https", status: "pass", message: "ok", fix: "" }];
    expect(parsePreflight({ status: "pass", checks }).checks).toHaveLength(1);
    expect(() => parsePreflight({ status: "maybe", checks })).toThrow(SiteRequestError);
  });
});
