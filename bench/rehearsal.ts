/**
 * Rehearsal benchmark (issue 13), against the real engine, a real live WordPress with our plugin and PostgreSQL:
 *   - a site of 50 pages with 50 media references copied into a sandbox: p50 from request to ready (pool warm),
 *   - one page through the preview (the route handler: owner check, proxy, rewriting) against the same page
 *     straight from the container: p50 each and the ratio,
 *   - apply of a 10-item rehearsal to the live site (one conditional batch, recorded as a live change set): p50.
 * Run alone: `node --import tsx bench/rehearsal.ts`.
 */
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { promisify } from "node:util";
import { GET as previewRoute } from "@/app/preview/[sandboxId]/[[...path]]/route";
import { operationsByName } from "@/lib/agent/operations";
import { insertSiteRow, startAgentSite } from "@/test/agent-site";
import { writeThroughAgent } from "@/test/changes";
import { setDatabaseForTests } from "@/lib/db";
import { countSandboxes, insertConversation } from "@/lib/db/queries";
import { createTestDatabase } from "@/lib/db/testing";
import { setSandboxManagerForTests } from "@/lib/sandbox";
import { applyRehearsal } from "@/lib/workflows/apply-rehearsal";
import { createTestSandboxes } from "@/lib/sandbox/testing";
import { newUser } from "@/test/accounts";
import { call } from "@/test/http";
import { sized } from "./lib/smoke";

const COPIES = sized(5);
const PAGE_FETCHES = sized(30);
const APPLIES = sized(5);
const APP = "http://localhost:3000";
const execFileAsync = promisify(execFile);

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
};
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

/** 50 published pages, each showing its own uploaded image (an attachment in the media library). */
async function seedFiftyPagesWithMedia(wpPath: string): Promise<void> {
  const code = `
    $_SERVER['HTTP_HOST'] = 'localhost'; $_SERVER['REQUEST_URI'] = '/'; $_SERVER['SERVER_NAME'] = 'localhost';
    define('WP_USE_THEMES', false);
    require $argv[1] . '/wp-load.php';
    require_once ABSPATH . 'wp-admin/includes/image.php';
    $admin = get_users(array('role' => 'administrator', 'number' => 1))[0];
    wp_set_current_user($admin->ID);
    $png = base64_decode('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==');
    for ($i = 1; $i <= 50; $i++) {
      $upload = wp_upload_bits("bench-$i.png", null, $png);
      $attachment = wp_insert_attachment(array('post_mime_type' => 'image/png', 'post_title' => "Bench image $i", 'post_status' => 'inherit'), $upload['file']);
      $url = wp_get_attachment_url($attachment);
      wp_insert_post(array('post_type' => 'page', 'post_status' => 'publish', 'post_title' => "Bench page $i",
        'post_content' => "<!-- wp:paragraph --><p>Page $i</p><!-- /wp:paragraph -->\\n\\n<!-- wp:image {\\"id\\":$attachment} --><figure class=\\"wp-block-image\\"><img src=\\"$url\\" alt=\\"\\" class=\\"wp-image-$attachment\\"/></figure><!-- /wp:image -->"));
    }
  `;
  await execFileAsync("php", ["-r", code, "--", wpPath]);
}

async function waitForPool(size: number, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while ((await countSandboxes({ statuses: ["pooled"] })) < size) {
    if (Date.now() > deadline) throw new Error("the pool did not fill in time");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export async function benchRehearsal(): Promise<Record<string, number>> {
  const db = await createTestDatabase();
  await setDatabaseForTests(db.handle);
  const wp = await startAgentSite();
  const t = { current: undefined as ReturnType<typeof createTestSandboxes> | undefined };
  try {
    await seedFiftyPagesWithMedia(wp.local.wpPath);
    const owner = await newUser("bench-rehearsal");
    const siteId = await insertSiteRow({
      userId: owner.id,
      url: wp.local.url,
      token: wp.token,
      secret: wp.secret,
      info: wp.info,
    });
    // The live site's client as the service builds it, trusting the test CA explicitly (no NODE_EXTRA_CA_CERTS).
    const live = wp.clientFor(wp.local.url);
    const sandboxes = createTestSandboxes(
      { poolSize: 1, max: 10, appUrl: APP },
      { siteSource: async () => ({ client: live, site: { id: siteId, url: wp.local.url } }) },
    );
    t.current = sandboxes;
    await sandboxes.manager.image();
    await setSandboxManagerForTests(sandboxes.manager);

    // 1. Copy: POST /sessions {siteId} with a warm pool, to a ready sandbox holding the subset.
    const copyTimes: number[] = [];
    let copied = { pages: 0, media: 0 };
    for (let i = 0; i < COPIES; i++) {
      await sandboxes.manager.fillPool();
      await waitForPool(1);
      const started = performance.now();
      const sandbox = await sandboxes.manager.createSandbox({ userId: owner.id, siteId });
      copyTimes.push(performance.now() - started);
      const items = sandbox.manifest?.items ?? [];
      copied = {
        pages: items.filter((item) => item.kind === "page").length,
        media: items.filter((item) => item.kind === "attachment").length,
      };
      if (i < COPIES - 1) await sandboxes.manager.deleteSandbox({ userId: owner.id, id: sandbox.id });
    }

    // 2. One page through the preview vs straight from the container.
    const [sandbox] = await sandboxes.manager.listSandboxes({ userId: owner.id });
    if (!sandbox) throw new Error("no sandbox left to preview");
    const direct = await sandboxes.directUrl(sandbox.id);
    const path = "/bench-page-7/";
    const directTimes: number[] = [];
    const previewTimes: number[] = [];
    for (let i = 0; i < PAGE_FETCHES + 3; i++) {
      let started = performance.now();
      const plain = await fetch(`${direct}${path}`);
      await plain.text();
      if (i >= 3) directTimes.push(performance.now() - started);
      started = performance.now();
      const proxied = await call(previewRoute, {
        path: `/preview/${sandbox.id}${path}`,
        cookie: owner.cookie,
        params: { sandboxId: sandbox.id },
      });
      if (proxied.status !== 200) throw new Error(`the preview answered ${proxied.status}`);
      if (i >= 3) previewTimes.push(performance.now() - started);
    }

    // 3. Apply of a 10-item rehearsal: ten pages edited in the sandbox, then one apply to the live site.
    const conversationId = randomUUID();
    await insertConversation({ id: conversationId, userId: owner.id, siteId, title: "bench", now: new Date() });
    const rehearsal = await sandboxes.manager.rehearsal({ userId: owner.id, siteId, conversationId, live });
    const pages = rehearsal.manifest.items.filter((item) => item.kind === "page").slice(0, 10);
    const applyTimes: number[] = [];
    for (let run = 0; run < APPLIES; run++) {
      const turnId = randomUUID();
      let changeSetId = "";
      for (const page of pages) {
        const written = await writeThroughAgent(
          {
            scope: {
              userId: owner.id,
              siteId,
              conversationId,
              turnId,
              target: "sandbox",
              sandboxId: rehearsal.sandbox.id,
            },
            client: rehearsal.client,
          },
          operationsByName.get("update_page")!,
          {
            id: Number(page.sandboxId),
            content: `<!-- wp:paragraph --><p>Run ${run}: ${page.title}</p><!-- /wp:paragraph -->`,
          },
        );
        changeSetId = (written.data as { changeSetId: string }).changeSetId;
      }
      const started = performance.now();
      const applied = await applyRehearsal(
        { userId: owner.id, siteId, changeSetId },
        live,
        sandboxes.manager.rehearsals(),
      );
      applyTimes.push(performance.now() - started);
      if (applied.items.length !== 10) throw new Error(`applied ${applied.items.length} items, not 10`);
    }

    const directP50 = percentile(directTimes, 50);
    const previewP50 = percentile(previewTimes, 50);
    return {
      rehearsal_copy_pages: copied.pages,
      rehearsal_copy_media: copied.media,
      rehearsal_copy_50_pages_p50_ms: round(percentile(copyTimes, 50)),
      rehearsal_copy_50_pages_max_ms: round(Math.max(...copyTimes)),
      rehearsal_page_direct_p50_ms: round(directP50),
      rehearsal_page_preview_p50_ms: round(previewP50),
      rehearsal_preview_over_direct: round(previewP50 / directP50, 2),
      rehearsal_apply_10_items_p50_ms: round(percentile(applyTimes, 50)),
      rehearsal_apply_10_items_max_ms: round(Math.max(...applyTimes)),
    };
  } finally {
    await setSandboxManagerForTests(undefined);
    await t.current?.cleanup();
    await wp.local.stop();
    await setDatabaseForTests(undefined);
    await db.drop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchRehearsal().then(
    (results) => {
      console.log(JSON.stringify(results, null, 2));
      process.exit(0);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
