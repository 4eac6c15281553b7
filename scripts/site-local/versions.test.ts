/**
 * The local site on the WordPress versions the suite runs (6.1 and 7.1) and with a page builder: WordPress 7.1 with
 * Elementor 4.2.2 active next to our plugin, built from ../shared/fixtures (checked) by scripts/setup/wordpress.sh.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sign } from "../../lib/sites/signing";
import { defaultWordPressVersion, type LocalSite, startLocalSite } from "./index";

describe("the WordPress version of a local site", () => {
  it("is SITEWRIGHT_WORDPRESS's when set, else 6.1, and an unknown one is refused", () => {
    expect(defaultWordPressVersion({})).toBe("6.1");
    expect(defaultWordPressVersion({ SITEWRIGHT_WORDPRESS: "7.1" })).toBe("7.1");
    expect(defaultWordPressVersion({ SITEWRIGHT_WORDPRESS: " 6.1 " })).toBe("6.1");
    expect(() => defaultWordPressVersion({ SITEWRIGHT_WORDPRESS: "5.9" })).toThrow(/use one of 6\.1, 7\.1/);
  });

  it("refuses Elementor on 6.1 before starting anything (Elementor 4.2 needs 6.8+)", async () => {
    await expect(startLocalSite({ wordpress: "6.1", plugins: ["elementor"] })).rejects.toThrow(
      /elementor needs WordPress 6\.8\+/,
    );
  });
});

describe("WordPress 7.1 with Elementor, beside our plugin", () => {
  let site: LocalSite;
  beforeAll(async () => {
    site = await startLocalSite({ wordpress: "7.1", plugins: ["elementor"], title: "Builder Local" });
  });
  afterAll(async () => {
    await site?.stop();
  });

  it("runs 7.1 with both plugins active, the block theme of 7.1, and the Abilities API", async () => {
    expect(site.wordpress).toMatch(/^7\.1(\.\d+)?$/);
    expect(site.activePlugins).toEqual(
      expect.arrayContaining(["elementor/elementor.php", "sitewright-connector/sitewright-connector.php"]),
    );
    const index = JSON.parse((await site.fetch("/wp-json/")).body) as { name: string; namespaces: string[] };
    expect(index.name).toBe("Builder Local");
    expect(index.namespaces).toEqual(expect.arrayContaining(["sitewright/v1", "elementor/v1", "wp-abilities/v1"]));
    const home = await site.fetch("/");
    expect(home.status).toBe(200);
    expect(home.body).toContain("/wp-content/themes/twentytwentyfive/");
  });

  it("answers our signed routes as on 6.1", async () => {
    const creds = await site.cli<{ token: string; secret: string }>("create-credentials", "--scopes=site:read");
    const timestamp = Date.now();
    const info = await site.fetch("/wp-json/sitewright/v1/info", {
      headers: {
        authorization: `Bearer ${creds.token}`,
        "x-sitewright-timestamp": String(timestamp),
        "x-sitewright-signature": sign(creds.secret, { timestamp, method: "GET", route: "/sitewright/v1/info" }),
      },
    });
    expect(info.status).toBe(200);
    expect(JSON.parse(info.body)).toMatchObject({ homeUrl: site.url, wordpress: site.wordpress });
  });
});
