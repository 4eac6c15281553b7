/**
 * "Approve all" covers exactly what the owner was shown (API.md v1.3, "Durable writes"; issue 33), in Chromium on the
 * real WordPress: a job's queue is drawn while the job still plans, its button says how many waiting items it covers,
 * more items arrive after the page was drawn, and the click writes exactly the drawn ones; the later ones keep
 * waiting. The click must carry what the page drew: without it, an Apply while the job plans is refused, and once it
 * is ready it would take the later items too, so either way this test fails.
 */
import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";
import { eq } from "drizzle-orm";
import { planPostUpdate } from "../lib/changes/plan";
import { getDb } from "../lib/db";
import { getChangeSetItems, insertChangeItems } from "../lib/db/queries";
import { jobs } from "../lib/db/schema";
import { readItems } from "../lib/sites/items";
import { runAsAdmin } from "../test/wordpress";
import { connectSite, signUp, useAppDatabase } from "./support/owner";
import { replaceJobInQueue } from "./support/jobs";
import { asServerDrewIt } from "./support/server-html";
import { e2eState } from "./support/state";
import { allowTest, scaled } from "./support/waits";

useAppDatabase();

const php = <T>(body: string, args: unknown = null) => runAsAdmin<T>(e2eState().site.wpPath, body, args);

/** Published pages with the shop's old number; their ids. */
const pages = (tag: string, count: number) =>
  php<number[]>(
    "$ids = array(); for ($i = 1; $i <= (int) $args[1]; $i++) { $ids[] = wp_insert_post(array('post_type' => 'page', 'post_status' => 'publish', 'post_title' => $args[0] . ' ' . $i, 'post_content' => '<!-- wp:paragraph --><p>Call us on 555-0100.</p><!-- /wp:paragraph -->')); } echo json_encode($ids);",
    [tag, count],
  );

const contents = (ids: number[]) =>
  php<Record<string, string>>(
    "$out = array(); foreach ($args as $id) { $out[$id] = get_post($id)->post_title . ' | ' . get_post($id)->post_content; } echo json_encode($out);",
    ids,
  );

test("Approve all waiting (N) writes the N items the page drew; items that arrived later keep waiting", async ({
  page,
}) => {
  allowTest(240_000);
  const { siteId, admin } = await connectSite(await signUp(page, "shown"));
  const tag = `shown${Date.now()}`;
  const drawnPages = await pages(tag, 5);

  const job = await replaceJobInQueue(page, siteId, tag);
  await expect(page.getByTestId("job-counts")).toContainText("5 waiting for your review");
  const jobId = job.id;
  const db = await getDb();

  // The job is still planning (another runner holds it), and the owner's page is drawn with its 5 waiting items.
  const leaseUntil = new Date(Date.now() + 10 * 60_000);
  await db.update(jobs).set({ status: "planning", leaseOwner: "e2e-planner", leaseUntil }).where(eq(jobs.id, jobId));
  try {
    await page.reload();
    await expect(page.getByTestId("job")).toHaveAttribute("data-status", "planning");
    const queue = page.getByTestId("queue-item");
    await expect(queue).toHaveCount(5);
    const drawnIds = await queue.evaluateAll((rows) => rows.map((row) => row.getAttribute("data-key")!));
    const button = page.getByRole("button", { name: /^Approve all waiting/ });
    await expect(button).toHaveText("Approve all waiting (5 shown so far; later ones keep waiting)");
    // As the server drew the queue, before its bundles ran, the button waits (app/use-hydrated.ts).
    await asServerDrewIt(page, page.url(), async (drawn) => {
      await expect(drawn.getByRole("button", { name: /^Approve all waiting/ })).toBeDisabled();
    });

    // Then the planner adds 3 more items to the queue, after the page was drawn.
    const later = await pages(`${tag}-later`, 3);
    const current = await readItems(
      admin,
      later.map((id) => `post:${id}`),
    );
    await insertChangeItems(
      current.map((item) => ({
        ...planPostUpdate(item, { title: `${item.title} (renamed)` }, "Renamed."),
        id: randomUUID(),
        changeSetId: job.changeSetId,
        toolCallId: null,
        status: "pending" as const,
        now: new Date(),
      })),
    );

    const sent = page.waitForRequest((request) => request.url().endsWith(`/changes/${job.changeSetId}/apply`));
    await button.click();
    // The click carries the last item the page drew, and nothing else.
    expect((await sent).postDataJSON()).toEqual({ upTo: drawnIds.at(-1) });
    await expect(page.getByTestId("queue-outcome")).toContainText("Approved the 5 shown.", { timeout: scaled(60_000) });

    const items = await getChangeSetItems(job.changeSetId);
    const written = items.filter((item) => item.status === "applied").map((item) => item.id);
    expect(written.sort()).toEqual([...drawnIds].sort());
    const waiting = items.filter((item) => item.status === "pending").map((item) => item.ref);
    expect(waiting.sort()).toEqual(later.map((id) => `post:${id}`).sort());
    const site = await contents([...drawnPages, ...later]);
    for (const id of drawnPages) expect(site[id]).toContain("555-0199");
    for (const id of later) expect(site[id]).not.toContain("(renamed)");

    // The refreshed page shows the later items waiting, and its button now covers exactly those 3.
    await expect(page.locator('[data-testid="queue-item"][data-status="pending"]')).toHaveCount(3);
    await expect(button).toHaveText("Approve all waiting (3 shown so far; later ones keep waiting)");
  } finally {
    await db.update(jobs).set({ status: "ready", leaseOwner: null, leaseUntil: null }).where(eq(jobs.id, jobId));
  }
});

test("the review page's Approve writes the changes it drew; one planned after it was drawn keeps waiting", async ({
  page,
}) => {
  allowTest(180_000);
  const { appUrl } = e2eState();
  const { siteId, admin } = await connectSite(await signUp(page, "shown-review"));
  const tag = `shownreview${Date.now()}`;
  const [shown, later] = (await pages(tag, 2)) as [number, number];
  await page.goto(`${appUrl}/sites/${siteId}/chat?new=1`);
  await page
    .getByRole("textbox", { name: "Message" })
    .fill(`call update_page ${JSON.stringify({ type: "page", id: shown, title: `${tag} shown (new)` })}`);
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.locator('[data-testid="tool-card"][data-state="approval"]')).toHaveCount(1);
  const listed = await (await page.request.get(`${appUrl}/sites/${siteId}/changes`)).json();
  const set = listed.changeSets.find((s: { status: string }) => s.status === "pending");
  await page.goto(`${appUrl}/sites/${siteId}/review/${set.id}`);
  await expect(page.getByTestId("diff-row")).toHaveCount(1);
  const drawn = await getChangeSetItems(set.id);
  expect(drawn).toHaveLength(1);

  // Another change joins the set after the page was drawn (as a later turn of the conversation plans one).
  const [current] = await readItems(admin, [`post:${later}`]);
  const [added] = await insertChangeItems([
    {
      ...planPostUpdate(current!, { title: `${tag} later (new)` }, "Renamed."),
      id: randomUUID(),
      changeSetId: set.id,
      toolCallId: null,
      status: "pending" as const,
      now: new Date(),
    },
  ]);

  const sent = page.waitForRequest((request) => request.url().endsWith(`/changes/${set.id}/approve`));
  await page.getByRole("button", { name: "Approve" }).click();
  // The click carries the last change the page drew.
  expect((await sent).postDataJSON()).toEqual({ upTo: drawn[0]!.id });
  await expect(page.locator('[data-testid="diff-row"] [data-testid="change-item"][data-status="applied"]')).toHaveCount(
    1,
  );
  // The page now draws the later change too, still waiting, with nothing refused.
  await expect(page.locator('[data-testid="change-item"][data-status="pending"]')).toHaveCount(1);
  await expect(page.locator("main p.error")).toHaveCount(0);
  const items = await getChangeSetItems(set.id);
  expect(items.find((item) => item.id === added!.id)?.status).toBe("pending");
  expect(items.filter((item) => item.status === "applied").map((item) => item.ref)).toEqual([`post:${shown}`]);
  const site = await contents([shown, later]);
  expect(site[shown]).toContain(`${tag} shown (new)`);
  expect(site[later]).not.toContain("(new)");
});
