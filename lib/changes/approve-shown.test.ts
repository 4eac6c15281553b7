/**
 * "Approve all" covers exactly what the owner was shown (API.md v1.3, "Durable writes"), over HTTP on the real
 * WordPress with our plugin and PostgreSQL: the job's queue page is drawn (its "Approve all" carries the last item it
 * drew as `upTo`, and says how many waiting items that covers), then more items arrive in the queue, as from a job
 * still planning; the click writes only what was drawn, and the later items keep waiting. While the job still plans,
 * an Apply without `itemIds` or `upTo` is refused.
 */
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { POST as applyRoute } from "@/app/sites/[id]/changes/[changeSetId]/apply/route";
import { getDb } from "@/lib/db";
import { getChangeSetItems, insertChangeItems } from "@/lib/db/queries";
import { jobs } from "@/lib/db/schema";
import { useTestDatabase } from "@/lib/db/testing";
import { kickJobRunner, loadJobReview, setJobDepsForTests, startBulkJob } from "@/lib/workflows/bulk-job";
import { setChangeDepsForTests } from "@/lib/workflows/change-set-actions";
import { newUser } from "@/test/accounts";
import { type AgentTestSite, insertSiteRow, startAgentSite } from "@/test/agent-site";
import { call } from "@/test/http";
import { runAsAdmin } from "@/test/wordpress";
import { planPostUpdate } from "./plan";
import { readItems } from "@/lib/sites/items";

vi.setConfig({ testTimeout: 240_000 });
useTestDatabase();

let wp: AgentTestSite;

beforeAll(async () => {
  wp = await startAgentSite();
  setChangeDepsForTests({ siteClient: () => wp.admin });
  setJobDepsForTests({ siteClient: () => wp.admin });
}, 180_000);

afterAll(async () => {
  setChangeDepsForTests(undefined);
  setJobDepsForTests(undefined);
  await wp?.local.stop();
});

const php = <T>(body: string, args: unknown = null) => runAsAdmin<T>(wp.local.wpPath, body, args);

const pages = (count: number, tag: string) =>
  php<number[]>(
    `$ids = array(); for ($i = 1; $i <= (int) $args[0]; $i++) { $ids[] = wp_insert_post(array('post_type' => 'page', 'post_status' => 'publish', 'post_title' => $args[1] . ' ' . $i, 'post_content' => '<!-- wp:paragraph --><p>Call us on 555-0100.</p><!-- /wp:paragraph -->')); } echo json_encode($ids);`,
    [count, tag],
  );

it("writes only the items the page drew; items that arrived after it keep waiting", async () => {
  const owner = await newUser("shown");
  const siteId = await insertSiteRow({
    userId: owner.id,
    url: wp.local.url,
    token: wp.token,
    secret: wp.secret,
    info: wp.info,
  });
  const tag = `shown-${Date.now()}`;
  await pages(12, tag);
  const job = await startBulkJob({
    userId: owner.id,
    siteId,
    conversationId: randomUUID(),
    client: wp.admin,
    spec: {
      description: "pages with the old number",
      selection: { type: "page", search: tag, status: "publish" },
      change: { kind: "replace", field: "content", find: "555-0100", replace: "555-0199" },
    },
  });
  await kickJobRunner();
  // The owner's page is drawn: 12 waiting items, "Approve all" carries the last one.
  const drawn = await loadJobReview({ userId: owner.id, siteId, jobId: job.id });
  expect(drawn.approveAll.count).toBe(12);
  // Then the job plans more (it is still planning): 5 more pages arrive in the queue after the page was drawn.
  await (await getDb()).update(jobs).set({ status: "planning" }).where(eq(jobs.id, job.id));
  const later = await pages(5, `${tag}-later`);
  const current = await readItems(
    wp.admin,
    later.map((id) => `post:${id}`),
  );
  await insertChangeItems(
    current.map((item) => {
      const plan = planPostUpdate(item, { title: `${item.title} (new)` }, "Renamed.");
      return {
        ...plan,
        id: randomUUID(),
        changeSetId: job.changeSetId,
        toolCallId: null,
        status: "pending",
        now: new Date(),
      };
    }),
  );

  const apply = (body: Record<string, unknown>) =>
    call(applyRoute, {
      body,
      cookie: owner.cookie,
      headers: { origin: "http://localhost:3000" },
      params: { id: siteId, changeSetId: job.changeSetId },
    });
  const unbounded = await apply({});
  expect(unbounded.status).toBe(409);
  expect(unbounded.json.error.code).toBe("not_applicable");
  expect((await apply({ upTo: "no-such-item" })).status).toBe(404);
  expect((await apply({ upTo: drawn.approveAll.upTo, itemIds: ["x"] })).status).toBe(400);

  const answer = await apply({ upTo: drawn.approveAll.upTo });
  expect(answer.status, answer.text).toBe(200);
  const items = await getChangeSetItems(job.changeSetId);
  const written = items.filter((item) => item.status === "applied");
  expect(written).toHaveLength(12);
  expect(new Set(written.map((item) => item.id))).toEqual(new Set(drawn.page.changeSet.items.map((item) => item.id)));
  const waiting = items.filter((item) => item.status === "pending");
  expect(waiting.map((item) => item.ref).sort()).toEqual(later.map((id) => `post:${id}`).sort());
  const titles = await php<string[]>(
    "echo json_encode(array_map(function ($id) { return get_post($id)->post_title; }, $args));",
    later,
  );
  expect(titles.every((title) => !title.endsWith("(new)"))).toBe(true);
});
