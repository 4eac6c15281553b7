/**
 * Change sets on the real WordPress with our plugin (scripts/site-local): the undo of a 10-item change set (one
 * conditional batch, as `undoChangeSet` sends it) against the ten conditional writes it reverses (one request
 * each, as the agent makes them), and the cost of a version-checked write through the items route against the
 * same change through core's REST route (what the agent used before change sets). Run by `npm run bench`, or
 * alone: `node --import tsx bench/changes.ts`.
 */
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { reverseChange } from "@/lib/changes/plan";
import { readItems, writeItems } from "@/lib/sites/items";
import { createSiteClient } from "@/lib/sites/client";
import { anonymousFetcher } from "@/lib/verification/fetch-page";
import { verifyLiveChange } from "@/lib/verification/verify";
import { startLocalSite } from "@/scripts/site-local/index";
import { median, round, timed } from "./lib/stats";
import { sized } from "./lib/smoke";

const ITERATIONS = sized(15);
const ITEMS = 10;

export async function benchChanges(): Promise<Record<string, number>> {
  const site = await startLocalSite({ title: "Bench changes" });
  try {
    const { token, secret } = await site.cli<{ token: string; secret: string }>(
      "create-credentials",
      "--scopes=site:read,content:read,content:write",
    );
    const client = createSiteClient(
      { baseUrl: site.url, restUrl: site.restUrl, token, secret },
      { ca: readFileSync(site.caPath, "utf8"), allowlist: ["localhost"] },
    );
    const ids: number[] = [];
    for (let i = 0; i < ITEMS; i++) {
      const { data } = await client.post<{ id: number }>("/wp/v2/pages", {
        title: `Bench ${i}`,
        content: `<!-- wp:paragraph --><p>Paragraph ${i}</p><!-- /wp:paragraph -->`,
        status: "publish",
      });
      ids.push(data.id);
    }
    const refs = ids.map((id) => `post:${id}`);

    const writes: number[] = [];
    const undos: number[] = [];
    for (let round_ = 0; round_ < ITERATIONS; round_++) {
      const before = await readItems(client, refs);
      const applied: Array<{
        ref: string;
        beforeState: Record<string, unknown>;
        afterState: Record<string, unknown>;
        versionAfter: string | null;
      }> = [];
      let total = 0;
      for (const item of before) {
        const { ms, value } = await timed(() =>
          writeItems(client, [
            { ref: item.ref, expect: item.version, action: "update", fields: { title: `${item.title} (${round_})` } },
          ]),
        );
        total += ms;
        const [done] = value;
        applied.push({
          ref: item.ref,
          beforeState: item.state!,
          afterState: done!.after!,
          versionAfter: done!.version,
        });
      }
      writes.push(total);
      const reverse = applied.reverse().map((a) => reverseChange({ ...a, action: "update" }));
      undos.push((await timed(() => writeItems(client, reverse))).ms);
    }

    // One write with the version check (items route) against the same change through core's route.
    const checked: number[] = [];
    const core: number[] = [];
    const [target] = ids;
    for (let i = 0; i < ITERATIONS * 2; i++) {
      const [current] = await readItems(client, [`post:${target}`]);
      checked.push(
        (
          await timed(() =>
            writeItems(client, [
              { ref: current!.ref, expect: current!.version, action: "update", fields: { title: `Checked ${i}` } },
            ]),
          )
        ).ms,
      );
      core.push((await timed(() => client.post(`/wp/v2/pages/${target}`, { title: `Core ${i}` }))).ms);
    }

    // Approve to "Verified on the live site": the approved write, then the purge and the look at the public page.
    const verified: number[] = [];
    const fetchPage = anonymousFetcher({ ca: readFileSync(site.caPath, "utf8"), allowlist: ["localhost"] });
    for (let i = 0; i < ITERATIONS; i++) {
      const [current] = await readItems(client, [`post:${target}`]);
      const { ms, value } = await timed(async () => {
        const [done] = await writeItems(client, [
          { ref: current!.ref, expect: current!.version, action: "update", fields: { title: `Verified ${i}` } },
        ]);
        return verifyLiveChange({
          client,
          siteUrl: site.url,
          items: [
            {
              ref: current!.ref,
              kind: "page",
              title: `Verified ${i}`,
              from: current!.state,
              to: done!.after,
              version: done!.version,
            },
          ],
          fetchPage,
        });
      });
      if (value?.status !== "verified") throw new Error(`verification did not succeed: ${JSON.stringify(value)}`);
      verified.push(ms);
    }

    const undo = median(undos);
    const ten = median(writes);
    return {
      changes_undo_10_items_ms_p50: round(undo),
      changes_ten_writes_ms_p50: round(ten),
      changes_undo_over_ten_writes: round(undo / ten),
      changes_checked_write_ms_p50: round(median(checked)),
      changes_core_write_ms_p50: round(median(core)),
      changes_checked_write_over_core_write: round(median(checked) / median(core)),
      changes_approve_to_verified_ms_p50: round(median(verified)),
    };
  } finally {
    await site.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  console.log(await benchChanges());
  process.exit(0);
}
