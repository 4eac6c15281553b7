/**
 * The look at the live site on the real WordPress with our plugin: a change a visitor sees is verified on its public
 * page; a page cache that Sitewright can purge (WP Rocket's functions) is purged first; a cache nobody can purge is
 * reported as "not visible yet" with the reason; a plugin that puts the content back after the write is named as
 * the cause; an undo is verified the same way; a site whose purge answer or pages point to another origin gets no
 * request sent there.
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startAgentSite, type AgentTestSite } from "@/test/agent-site";
import { readItem, writeItems } from "@/lib/sites/items";
import { log } from "@/lib/log";
import { ensureTestCa } from "@/scripts/lib/tls";
import { installMuPlugin, runAsAdmin } from "@/test/wordpress";
import { anonymousFetcher } from "./fetch-page";
import { verifyLiveChange } from "./verify";

let wp: AgentTestSite;
const fetchPage = anonymousFetcher();

beforeAll(async () => {
  wp = await startAgentSite();
  installMuPlugin(
    wp.local.wpPath,
    "sitewright-test-page-cache.php",
    readFileSync(path.resolve(import.meta.dirname, "../../test/fixtures/page-cache-mu-plugin.php"), "utf8"),
  );
  installMuPlugin(
    wp.local.wpPath,
    "sitewright-test-off-site-purge.php",
    readFileSync(path.resolve(import.meta.dirname, "../../test/fixtures/off-site-purge-mu-plugin.php"), "utf8"),
  );
}, 120_000);

/** Another origin on this machine (https, trusted like the site): it records every request that reaches it. */
async function anotherOrigin() {
  const ca = ensureTestCa();
  const requests: string[] = [];
  const server = createServer({ cert: readFileSync(ca.cert), key: readFileSync(ca.key) }, (req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.writeHead(200, { "content-type": "text/html" }).end("<p>Bakery times. We bake at five.</p>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `https://localhost:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

afterAll(async () => {
  await wp?.local.stop();
});

async function publishedPage(title: string, sentence: string): Promise<number> {
  return runAsAdmin<number>(
    wp.local.wpPath,
    `echo json_encode(wp_insert_post(array('post_type' => 'page', 'post_status' => 'publish', 'post_title' => $args['title'], 'post_content' => '<!-- wp:paragraph --><p>' . $args['sentence'] . '</p><!-- /wp:paragraph -->')));`,
    { title, sentence },
  );
}

const setOption = (name: string, value: unknown) =>
  runAsAdmin(wp.local.wpPath, "update_option($args['name'], $args['value']); echo 'true';", { name, value });

/** Writes a new title and paragraph as the agent would, and returns what verification needs. */
async function edit(id: number, title: string, sentence: string) {
  const before = await readItem(wp.admin, `post:${id}`);
  const [written] = await writeItems(wp.admin, [
    {
      ref: `post:${id}`,
      expect: before.version,
      action: "update",
      fields: { title, content: `<!-- wp:paragraph --><p>${sentence}</p><!-- /wp:paragraph -->` },
    },
  ]);
  return {
    ref: `post:${id}`,
    kind: "page",
    title,
    from: before.state,
    to: written!.after,
    version: written!.version,
  };
}

const siteOrigin = () => new URL(wp.local.url).origin;

const verify = (items: Awaited<ReturnType<typeof edit>>[]) =>
  verifyLiveChange({ client: wp.admin, siteUrl: wp.local.url, items, fetchPage, delays: [0, 300] });

describe("verification on the live site", () => {
  it("verifies a title and text change on the page's public address", async () => {
    await setOption("sitewright_test_cache_mode", "off");
    const id = await publishedPage("Opening hours", "We open at nine.");
    const item = await edit(id, "Opening times", "We open at ten.");
    const result = await verify([item]);
    expect(result?.status).toBe("verified");
    expect(result?.urls).toHaveLength(1);
    expect(result?.urls[0]).toMatchObject({ status: "verified" });
    expect(result?.urls[0]?.url).toContain(wp.local.url);
  });

  it("purges a page cache it can name before looking, and then sees the change", async () => {
    await setOption("sitewright_test_cache_mode", "rocket");
    const id = await publishedPage("Menu", "Soup of the day: tomato.");
    const page = await readItem(wp.admin, `post:${id}`);
    const url = `${wp.local.url}/?page_id=${id}`;
    await fetchPage(url, siteOrigin()); // a visitor fills the cache with the old page
    expect((await fetchPage(url, siteOrigin())).headers.get("x-sitewright-test-cache")).toBe("HIT");
    const item = await edit(id, "Menu", "Soup of the day: lentil.");
    expect(page.version).not.toBe(item.version);
    const result = await verify([item]);
    expect(result?.status).toBe("verified");
    expect(result?.purged).toContain("WP Rocket");
  });

  it("reports a page a cache keeps showing as not visible yet, with the reason and the address", async () => {
    await setOption("sitewright_test_cache_mode", "stubborn");
    const id = await publishedPage("Prices", "A coffee costs two euros.");
    const url = `${wp.local.url}/?page_id=${id}`;
    await fetchPage(url, siteOrigin());
    const item = await edit(id, "Prices", "A coffee costs three euros.");
    const result = await verify([item]);
    expect(result?.status).toBe("not_visible");
    expect(result?.urls[0]?.reason).toMatch(/cache in front of the site/);
    expect(result?.urls[0]?.reason).toMatch(/still shows the earlier version/);
    await setOption("sitewright_test_cache_mode", "off");
  });

  it("names the site as the cause when a plugin puts the content back after the write", async () => {
    await setOption("sitewright_test_cache_mode", "off");
    const id = await publishedPage("Team", "Meet the team.");
    await setOption("sitewright_test_revert_title", id);
    try {
      const item = await edit(id, "Our team", "Meet the team.");
      const result = await verify([item]);
      expect(result?.status).toBe("not_visible");
      expect(result?.urls[0]?.reason).toMatch(/changed "Put back by another plugin" after the write/);
    } finally {
      await setOption("sitewright_test_revert_title", 0);
    }
  });

  it("verifies an undo the same way: the earlier text is back and the agent's is gone", async () => {
    await setOption("sitewright_test_cache_mode", "rocket");
    const id = await publishedPage("Contact", "Call us on Monday.");
    const item = await edit(id, "Contact", "Call us on Tuesday.");
    expect((await verify([item]))?.status).toBe("verified");
    const [undone] = await writeItems(wp.admin, [
      { ref: item.ref, expect: item.version, action: "update", fields: { content: item.from!.content } },
    ]);
    const result = await verify([{ ...item, from: item.to, to: undone!.after, version: undone!.version }]);
    expect(result?.status).toBe("verified");
    await setOption("sitewright_test_cache_mode", "off");
  });

  it("finds nothing to look at for a draft", async () => {
    const id = await runAsAdmin<number>(
      wp.local.wpPath,
      "echo json_encode(wp_insert_post(array('post_type' => 'page', 'post_status' => 'draft', 'post_title' => 'Plan')));",
    );
    const item = await edit(id, "Plan B", "Draft text.");
    expect(await verify([item])).toBeNull();
  });

  it("sends no request to another origin that the site's purge answer names, and looks on the site instead", async () => {
    await setOption("sitewright_test_cache_mode", "off");
    const elsewhere = await anotherOrigin();
    await setOption("sitewright_test_purge_origin", elsewhere.origin);
    const warn = vi.spyOn(log, "warn");
    try {
      const id = await publishedPage("Bakery hours", "We bake at dawn.");
      const item = await edit(id, "Bakery times", "We bake at five.");
      const result = await verify([item]);
      expect(elsewhere.requests).toEqual([]);
      expect(result?.status).toBe("verified");
      expect(result?.urls.map((u) => new URL(u.url).origin)).toEqual([siteOrigin()]);
      expect(warn).toHaveBeenCalledWith("the site's purge answer named addresses off its own origin: ignored", {
        siteOrigin: siteOrigin(),
        ignored: [`${elsewhere.origin}/`, `${elsewhere.origin}/elsewhere/post%3A${id}`],
      });
    } finally {
      warn.mockRestore();
      await setOption("sitewright_test_purge_origin", "");
      await elsewhere.close();
    }
  });

  it("follows no redirect from the site's page to another origin", async () => {
    await setOption("sitewright_test_cache_mode", "off");
    const elsewhere = await anotherOrigin();
    const id = await publishedPage("Bread", "Rye on Mondays.");
    const item = await edit(id, "Bread", "Rye on Tuesdays.");
    await setOption("sitewright_test_redirect_to", elsewhere.origin);
    try {
      const result = await verify([item]);
      expect(elsewhere.requests).toEqual([]);
      expect(result?.status).toBe("unreachable");
      expect(result?.urls[0]?.reason).toContain(`redirected to another site (${elsewhere.origin})`);
    } finally {
      await setOption("sitewright_test_redirect_to", "");
      await elsewhere.close();
    }
  });
});
