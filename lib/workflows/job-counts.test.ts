/**
 * A bulk job's counts add up (issue 35, "Queues that add up"): computed from its items in one SQL statement, every
 * selected item is in exactly one count at every step — planned, partly approved, partly rejected, undone as a
 * whole — and the actions offered follow: nothing to approve or cancel once the whole job is undone. Against the
 * real WordPress with our plugin, on both stores.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { getChangeSetItems } from "@/lib/db/queries";
import { STORES, useStore } from "@/lib/db/testing";
import { countsTotal, describeCounts, jobActions, jobBar, jobHeadline } from "@/lib/jobs/counts";
import type { JobSpec } from "@/lib/jobs/spec";
import { newUser } from "@/test/accounts";
import { type AgentTestSite, insertSiteRow, startAgentSite } from "@/test/agent-site";
import { runAsAdmin } from "@/test/wordpress";
import { kickJobRunner, setJobDepsForTests, showJobForOwner, startBulkJob } from "./bulk-job";
import {
  applyChangeSetForOwner,
  rejectQueueItemsForOwner,
  setChangeDepsForTests,
  undoChangeSetForOwner,
} from "./change-set-actions";

vi.setConfig({ testTimeout: 180_000 });

let wp: AgentTestSite;

beforeAll(async () => {
  wp = await startAgentSite();
  const client = () => wp.clientFor(wp.local.url);
  setChangeDepsForTests({ siteClient: client });
  setJobDepsForTests({ siteClient: client });
});

afterAll(async () => {
  setChangeDepsForTests(undefined);
  setJobDepsForTests(undefined);
  await wp?.local.stop();
});

/** Pages carrying the tag: `published` that visitors see, `drafts` they do not, and one without the old number. */
const pages = (tag: string, published: number, drafts: number) =>
  runAsAdmin<{ published: number[]; drafts: number[] }>(
    wp.local.wpPath,
    `$make = function ($status, $n, $text) use ($args) { $ids = array(); for ($i = 1; $i <= $n; $i++) { $ids[] = wp_insert_post(array('post_type' => 'page', 'post_status' => $status, 'post_title' => $args[0] . ' ' . $status . ' ' . $i, 'post_content' => '<!-- wp:paragraph --><p>' . $text . ' (' . $args[0] . ')</p><!-- /wp:paragraph -->')); } return $ids; };
     $out = array('published' => $make('publish', (int) $args[1], 'Call us on 555-0100'), 'drafts' => $make('draft', (int) $args[2], 'Call us on 555-0100'));
     $make('publish', 1, 'Write to us');
     echo json_encode($out);`,
    [tag, published, drafts],
  );

describe.each(STORES)("a job's counts (%s)", (store) => {
  useStore(store);
  let userId: string;
  let siteId: string;

  beforeAll(async () => {
    userId = (await newUser("counts")).id;
    siteId = await insertSiteRow({ userId, url: wp.local.url, token: wp.token, secret: wp.secret, info: wp.info });
  });

  it("adds up to the selection after a partial approve, a partial reject and an undo of the whole job", async () => {
    const tag = `counts${store.length}x${Date.now()}`;
    const made = await pages(tag, 6, 2);
    const spec: JobSpec = {
      description: "pages mentioning the shop",
      selection: { type: "page", search: tag, status: "any" },
      change: { kind: "replace", field: "content", find: "555-0100", replace: "555-0199" },
    };
    const started = await startBulkJob({ userId, siteId, conversationId: crypto.randomUUID(), spec, client: wp.admin });
    expect(started.counts).toMatchObject({ toPlan: 9 });
    await kickJobRunner();
    const show = () => showJobForOwner({ userId, siteId, jobId: started.id });
    const request = (itemIds?: string[]) => ({ userId, siteId, changeSetId: started.changeSetId, itemIds });

    const planned = await show();
    // 6 published pages wait, 2 drafts are written at once, the page without the number has nothing to change.
    expect(planned.counts).toEqual({ ...zero, waiting: 6, written: 2, skipped: 1 });
    expect(jobBar(planned)).toEqual({ label: "Items settled", value: 3, max: 9 });
    expect(jobActions(planned)).toEqual({ cancel: true, approveAll: true, undo: true });

    const items = await getChangeSetItems(started.changeSetId);
    const pending = (id: number) => items.find((item) => item.ref === `post:${id}`)!.id;
    await applyChangeSetForOwner(request([pending(made.published[0]!), pending(made.published[1]!)]));
    await rejectQueueItemsForOwner(request([pending(made.published[2]!), pending(made.published[3]!)]));
    const reviewed = await show();
    expect(reviewed.counts).toEqual({ ...zero, waiting: 2, written: 2, approved: 2, rejected: 2, skipped: 1 });
    expect(describeCounts(reviewed)).toBe(
      "9 items: 2 waiting for your review, 2 written at once (visitors do not see them), 2 approved and written, 2 rejected, 1 skipped.",
    );

    await undoChangeSetForOwner(request());
    const undone = await show();
    expect(undone.counts).toEqual({ ...zero, rejected: 4, undone: 4, skipped: 1 });
    expect(countsTotal(undone.counts)).toBe(undone.selection.count);
    expect(undone.status).toBe("done");
    expect(jobHeadline(undone)).toBe("Undone");
    expect(jobActions(undone)).toEqual({ cancel: false, approveAll: false, undo: false });
    expect(jobBar(undone)).toEqual({ label: "Items settled", value: 9, max: 9 });
  });

  it("is done once the owner has rejected everything that waited", async () => {
    const tag = `rejectall${store.length}x${Date.now()}`;
    await pages(tag, 3, 0);
    const spec: JobSpec = {
      description: "pages mentioning the shop",
      selection: { type: "page", search: tag, status: "publish" },
      change: { kind: "replace", field: "content", find: "555-0100", replace: "555-0199" },
    };
    const started = await startBulkJob({ userId, siteId, conversationId: crypto.randomUUID(), spec, client: wp.admin });
    await kickJobRunner();
    await rejectQueueItemsForOwner({ userId, siteId, changeSetId: started.changeSetId });
    const job = await showJobForOwner({ userId, siteId, jobId: started.id });
    expect(job).toMatchObject({ status: "done", counts: { ...zero, rejected: 3, skipped: 1 } });
    expect(jobActions(job)).toEqual({ cancel: false, approveAll: false, undo: false });
  });
});

const zero = {
  toPlan: 0,
  waiting: 0,
  inProgress: 0,
  written: 0,
  approved: 0,
  rejected: 0,
  skipped: 0,
  failed: 0,
  undone: 0,
};
