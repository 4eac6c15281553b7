/**
 * update_custom_css against the real plugin on a real WordPress 6.1 (scripts/site-local): offered only when the
 * site reports the feature and the token holds design:write, and what it writes is what the site then serves.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalSite, startLocalSite } from "../../../scripts/site-local";
import { writeItems } from "@/lib/sites/items";
import { createSiteClient, type SignedSiteClient, SiteRequestError } from "@/lib/sites/client";
import { allowedOperations, grantFromSiteInfo } from "../registry";
import { OperationError } from "./operation";
import updateCustomCss, { MAX_CUSTOM_CSS_BYTES } from "./update_custom_css";

type Credentials = { token: string; secret: string; scopes: string[] };

let site: LocalSite;
let designer: SignedSiteClient;
let reader: SignedSiteClient;

const connect = async (scopes: string) => {
  const credentials = await site.cli<Credentials>("create-credentials", `--scopes=${scopes}`);
  return createSiteClient(
    { baseUrl: site.url, restUrl: site.restUrl, token: credentials.token, secret: credentials.secret },
    { ca: readFileSync(site.caPath, "utf8"), allowlist: ["localhost"] },
  );
};
/** Plans the change and writes exactly that plan, as the agent's write path does. */
const run = async (client: SignedSiteClient, input: { css: string; mode?: "append" | "replace" }) => {
  const plan = await updateCustomCss.plan!(client, updateCustomCss.input.parse(input));
  await writeItems(
    client,
    plan.items.map((item) => item.change),
  );
  return { summary: plan.summary, before: plan.items[0]?.before, after: plan.items[0]?.after };
};
const siteCss = async () => (await designer.get<{ css: string; stylesheet: string }>("/sitewright/v1/custom-css")).data;

beforeAll(async () => {
  site = await startLocalSite();
  designer = await connect("site:read,design:write");
  reader = await connect("site:read,content:read,content:write");
});
afterAll(async () => {
  await site?.stop();
});

describe("update_custom_css on the real plugin", () => {
  it("is offered to a design:write token because the plugin reports the custom_css feature, and not to a content token", async () => {
    const designInfo = (await designer.get<Record<string, unknown>>("/sitewright/v1/info")).data;
    expect(designInfo.features).toContain("custom_css");
    // Offered on classic themes; a block theme (this site's) gets update_global_styles instead.
    const theme = designInfo.theme as Record<string, unknown>;
    const classicInfo = { ...designInfo, theme: { ...theme, isBlockTheme: false } };
    expect(allowedOperations(grantFromSiteInfo(classicInfo)).operations.map((op) => op.name)).toContain(
      "update_custom_css",
    );
    expect(
      allowedOperations(grantFromSiteInfo({ ...designInfo, theme: { ...theme, isBlockTheme: true } })).excluded,
    ).toContainEqual({ operation: "update_custom_css", reason: "theme" });

    const readerInfo = (await reader.get<Record<string, unknown>>("/sitewright/v1/info")).data;
    expect(allowedOperations(grantFromSiteInfo(readerInfo)).excluded).toContainEqual({
      operation: "update_custom_css",
      reason: "scope",
    });
  });

  it("replaces the site's CSS, which reads back byte for byte and is served on the home page", async () => {
    const css = `.wp-site-blocks > header a[href^="https"]::after { content: " ↗"; color: #b00; } /* ${Date.now()} */`;
    const result = await run(designer, { css, mode: "replace" });
    expect(result).toMatchObject({ summary: "Replaced the site's custom CSS.", after: { css } });
    expect(await siteCss()).toEqual({ css, stylesheet: expect.stringMatching(/^[\w-]+$/) });
    const home = await site.fetch("/");
    // Its own <style id="wp-custom-css"> on 6.1 and classic themes; inside the global styles on block themes (6.2+).
    const styles = [...home.body.matchAll(/<style[^>]*id="([^"]+)"[^>]*>([^<]*)<\/style>/g)];
    expect(["wp-custom-css", "global-styles-inline-css"]).toContain(styles.find((m) => m[2]!.includes(css))?.[1]);
  });

  it("appends rules after the existing CSS and shows before and after", async () => {
    await run(designer, { css: "body { margin: 0; }", mode: "replace" });
    const result = await run(designer, { css: "h1 { letter-spacing: .02em; }" });
    expect(result.before).toEqual({ css: "body { margin: 0; }" });
    expect((await siteCss()).css).toBe("body { margin: 0; }\n\nh1 { letter-spacing: .02em; }");
  });

  it("cannot smuggle markup out of the style element: the site refuses it and keeps its CSS", async () => {
    await run(designer, { css: "p { color: navy; }", mode: "replace" });
    const error = await run(designer, {
      css: "p{}</style><script>alert(document.cookie)</script>",
      mode: "replace",
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SiteRequestError);
    expect(error).toMatchObject({ kind: "rejected", siteStatus: 400, siteCode: "rest_invalid_param" });
    expect((await siteCss()).css).toBe("p { color: navy; }");
    expect((await site.fetch("/")).body).not.toContain("alert(document.cookie)");
  });

  it("is refused by the plugin for a token without design:write, and the CSS stays as it was", async () => {
    await run(designer, { css: "p { color: teal; }", mode: "replace" });
    const error = await run(reader, { css: "body { display: none; }", mode: "replace" }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ kind: "rejected", siteStatus: 403, siteCode: "sitewright_scope" });
    expect((await siteCss()).css).toBe("p { color: teal; }");
  });

  it("refuses an append that would pass the site's 64 KiB limit without sending it", async () => {
    await run(designer, { css: `/* ${"x".repeat(40_000)} */`, mode: "replace" });
    const error = await run(designer, { css: `/* ${"y".repeat(30_000)} */` }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OperationError);
    expect(error).toMatchObject({ code: "css_too_long" });
    expect(Buffer.byteLength((await siteCss()).css)).toBeLessThan(MAX_CUSTOM_CSS_BYTES);
  });
});
