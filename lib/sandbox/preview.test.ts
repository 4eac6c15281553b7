/**
 * The preview's rewriting rules, on their own (the proxy itself runs against real sandboxes in
 * app/sessions/sessions.test.ts and lib/sandbox/rehearsal.test.ts).
 */
import { describe, expect, it } from "vitest";
import { mapBlockIds } from "./apply";
import { hasPreviewGrant, isPublicAsset, previewCookie, rewriteText, scopeCookie } from "./preview";

const ID = "3f2b8a4e-1c2d-4e5f-8a9b-0c1d2e3f4a5b";
const BASE = `https://app.example/preview/${ID}`;

describe("the preview's rewriting", () => {
  it("replaces every spelling of the container's address with the preview base", () => {
    const text = [
      'href="http://127.0.0.1:41234/about/"',
      '"url":"http:\\/\\/127.0.0.1:41234\\/wp-json\\/"',
      "redirect_to=http%3A%2F%2F127.0.0.1%3A41234%2Fwp-admin%2F",
      'src="//127.0.0.1:41234/x.js"',
    ].join("\n");
    const out = rewriteText(text, "http://127.0.0.1:41234", BASE);
    expect(out).not.toMatch(/127\.0\.0\.1/);
    expect(out).toContain(`href="${BASE}/about/"`);
    expect(out).toContain(`"url":"${BASE.replaceAll("/", "\\/")}\\/wp-json\\/"`);
    expect(out).toContain(`redirect_to=${encodeURIComponent(BASE)}%2Fwp-admin%2F`);
  });

  it("keeps a sandbox's cookies inside its preview: path under the prefix, no Domain", () => {
    expect(scopeCookie("wordpress_logged_in_x=v; path=/; domain=127.0.0.1; HttpOnly", ID)).toBe(
      `wordpress_logged_in_x=v; HttpOnly; Path=/preview/${ID}/`,
    );
    expect(scopeCookie(`wp-settings-1=a; Path=/preview/${ID}/wp-admin`, ID)).toBe(
      `wp-settings-1=a; Path=/preview/${ID}/wp-admin`,
    );
    expect(scopeCookie("a=b; Path=/wp-admin", ID)).toBe(`a=b; Path=/preview/${ID}/wp-admin`);
  });

  it("grants the preview cookie to one user and one sandbox, until the sandbox expires", () => {
    const sandbox = { id: ID, expiresAt: new Date(Date.now() + 60_000) };
    const cookie = previewCookie({ secret: "s".repeat(32), appUrl: "https://app.example", userId: "u1", sandbox });
    expect(cookie).toMatch(new RegExp(`Path=/preview/${ID}/; Max-Age=\\d+; HttpOnly; Secure; SameSite=None$`));
    const header = cookie.split(";")[0]!;
    const check = (over: Partial<Parameters<typeof hasPreviewGrant>[0]>) =>
      hasPreviewGrant({
        cookieHeader: header,
        secret: "s".repeat(32),
        userId: "u1",
        sandboxId: ID,
        now: new Date(),
        ...over,
      });
    expect(check({})).toBe(true);
    expect(check({ userId: "u2" })).toBe(false);
    expect(check({ sandboxId: "00000000-0000-0000-0000-000000000000" })).toBe(false);
    expect(check({ secret: "t".repeat(32) })).toBe(false);
    expect(check({ now: new Date(Date.now() + 120_000) })).toBe(false);
    expect(check({ cookieHeader: "sw_preview=garbage" })).toBe(false);
  });

  it("serves only WordPress's own static files without the owner", () => {
    expect(isPublicAsset("GET", "/wp-includes/css/dashicons.min.css")).toBe(true);
    expect(isPublicAsset("GET", "/wp-content/themes/twentytwentythree/style.css")).toBe(true);
    expect(isPublicAsset("POST", "/wp-includes/css/dashicons.min.css")).toBe(false);
    for (const path of ["/", "/about/", "/wp-json/", "/wp-admin/", "/wp-content/uploads/a.png", "/wp-login.php"])
      expect(isPublicAsset("GET", path)).toBe(false);
    expect(isPublicAsset("GET", "/wp-includes/../wp-config.php")).toBe(false);
  });
});

describe("apply's id mapping in block markup", () => {
  it("maps image, navigation and media ids from the sandbox to the live site, and leaves others alone", () => {
    const ids = new Map([
      [7, 107],
      [9, 109],
    ]);
    const content = [
      '<!-- wp:image {"id":7,"sizeSlug":"large"} --><figure><img src="x" class="wp-image-7"/></figure><!-- /wp:image -->',
      '<!-- wp:navigation {"ref":9} /-->',
      '<!-- wp:media-text {"mediaId":7} --><div></div><!-- /wp:media-text -->',
      '<!-- wp:image {"id":8} --><figure><img class="wp-image-8"/></figure><!-- /wp:image -->',
    ].join("\n");
    const out = mapBlockIds(content, ids);
    expect(out).toContain('<!-- wp:image {"id":107,"sizeSlug":"large"} -->');
    expect(out).toContain('class="wp-image-107"');
    expect(out).toContain('<!-- wp:navigation {"ref":109} /-->');
    expect(out).toContain('<!-- wp:media-text {"mediaId":107} -->');
    expect(out).toContain('<!-- wp:image {"id":8} -->');
    expect(out).toContain('class="wp-image-8"');
  });
});
