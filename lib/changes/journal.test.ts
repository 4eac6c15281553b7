/**
 * Durable Apply and Undo (lib/changes/journal.ts) on the real WordPress with our plugin and real PostgreSQL, with the
 * process's death simulated between batches: a site client that stops the run right after one batch's request
 * reached WordPress (or right before), as a SIGKILL would, leaving the run `running` with its batch `writing`. The
 * sweeper then takes it over, finds out what the site holds and writes the rest: a must-use plugin counts every
 * update WordPress makes to each page, and each page is written exactly once. (test/reliability/apply-restart.test.ts
 * kills a real process.)
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { writeApprovedPlan } from "@/lib/agent/writes";
import {
  ClaimReleasedError,
  ClaimTakenError,
  findJobByChangeSet,
  findRunningRun,
  getChangeSetItems,
  listChangeAudit,
  transitionChangeItems,
  transitionJob,
} from "@/lib/db/queries";
import { advanceClockForTests, now, resetClockForTests } from "@/lib/clock";
import { env } from "@/lib/env";
import { startRun } from "./journal";
import { useTestDatabase } from "@/lib/db/testing";
import type { SiteClient } from "@/lib/sites/types";
import { newUser } from "@/test/accounts";
import { type AgentTestSite, insertSiteRow, startAgentSite } from "@/test/agent-site";
import { installMuPlugin, runAsAdmin } from "@/test/wordpress";
import { resumeInterruptedRuns } from "@/lib/workflows/resume-runs";
import {
  applyChangeSetForOwner,
  setChangeDepsForTests,
  showChangeSetForOwner,
  undoChangeSetForOwner,
} from "@/lib/workflows/change-set-actions";
import { kickJobRunner, setJobDepsForTests, showJobForOwner, startBulkJob } from "@/lib/workflows/bulk-job";
import { approvePendingChangeSet } from "./approve";
import { undoQueue } from "./queue";
import { approveAsRun, undoAsRun } from "./runs";
import { getChangeSet, recordPendingPlan } from "./change-sets";
import { planPostUpdate } from "./plan";
import { readItem } from "@/lib/sites/items";
import { ITEMS_ROUTE } from "@/lib/sites/items";

vi.setConfig({ testTimeout: 240_000 });
useTestDatabase();

let wp: AgentTestSite;
let userId: string;
let siteId: string;

const php = <T>(body: string, args: unknown = null) => runAsAdmin<T>(wp.local.wpPath, body, args);
const writes = () => php<Record<string, number>>("echo json_encode((object) get_option('sw_test_writes', array()));");

beforeAll(async () => {
  wp = await startAgentSite();
  installMuPlugin(
    wp.local.wpPath,
    "count-writes.php",
    `<?php
add_action('post_updated', function ($id, $after) {
  if ('page' !== $after->post_type) { return; }
  $counts = get_option('sw_test_writes', array());
  $counts[$id] = ($counts[$id] ?? 0) + 1;
  update_option('sw_test_writes', $counts, false);
}, 10, 2);
`,
  );
  setChangeDepsForTests({ siteClient: () => wp.admin });
  setJobDepsForTests({ siteClient: () => wp.admin });
  userId = (await newUser("durable")).id;
  siteId = await insertSiteRow({ userId, url: wp.local.url, token: wp.token, secret: wp.secret, info: wp.info });
}, 180_000);

afterAll(async () => {
  setChangeDepsForTests(undefined);
  setJobDepsForTests(undefined);
  await wp?.local.stop();
});

class SimulatedDeath extends Error {
  constructor() {
    super("the process died here");
    this.name = "SimulatedDeath";
  }
}

/**
 * The site client of a process that dies at its `nth` batch write: after WordPress wrote it (`landed`), or before
 * the request left. Every other request goes through.
 */
function dyingClient(nth: number, landed: boolean): SiteClient {
  let posts = 0;
  return {
    get: (route, query) => wp.admin.get(route, query),
    put: (route, body) => wp.admin.put(route, body),
    delete: (route, query) => wp.admin.delete(route, query),
    post: async (route, body) => {
      if (route === ITEMS_ROUTE && ++posts === nth) {
        if (landed) await wp.admin.post(route, body);
        throw new SimulatedDeath();
      }
      return wp.admin.post(route, body);
    },
  } as SiteClient;
}

const pages = (count: number, tag: string) =>
  php<number[]>(
    `$ids = array(); for ($i = 1; $i <= (int) $args[0]; $i++) { $ids[] = wp_insert_post(array('post_type' => 'page', 'post_status' => 'publish', 'post_title' => $args[1] . ' ' . $i, 'post_content' => '<!-- wp:paragraph --><p>Call us on 555-0100.</p><!-- /wp:paragraph -->')); } echo json_encode($ids);`,
    [count, tag],
  );

const contents = (ids: number[]) =>
  php<string[]>("echo json_encode(array_map(function ($id) { return get_post($id)->post_content; }, $args));", ids);

describe("an Apply or Undo whose process dies between batches", () => {
  it("is finished by the next instance: every page of a job written exactly once, applied counted, undone once", async () => {
    const tag = `durable-job-${Date.now()}`;
    const ids = await pages(60, tag);
    const job = await startBulkJob({
      userId,
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
    const request = { userId, siteId, changeSetId: job.changeSetId };
    const before = await writes();

    // Dies right after WordPress wrote the second batch: the run is left with that batch `writing`.
    setChangeDepsForTests({ siteClient: () => dyingClient(2, true) });
    await expect(applyChangeSetForOwner(request)).rejects.toThrow(SimulatedDeath);
    setChangeDepsForTests({ siteClient: () => wp.admin });
    expect((await findJobByChangeSet(job.changeSetId))?.status).toBe("applying");
    // Read without the page's own take-over (showChangeSetForOwner would resume it at once).
    expect((await getChangeSet(request)).status).toBe("applying");

    expect(await resumeInterruptedRuns({ siteClient: () => wp.admin })).toBe(1);
    const done = await showJobForOwner({ userId, siteId, jobId: job.id });
    expect(done.status).toBe("done");
    expect(done.progress.applied).toBe(60);
    expect(done.resumedAt).toBeDefined();
    const set = await showChangeSetForOwner(request);
    expect(set.status).toBe("applied");
    expect(set.resumedAt).toBeDefined();
    const after = await writes();
    for (const id of ids) expect(after[id]! - (before[id] ?? 0), `writes to page ${id}`).toBe(1);
    for (const html of await contents(ids)) expect(html).toContain("555-0199");

    // Undo dies before its second batch leaves: the sweeper writes it, once.
    setChangeDepsForTests({ siteClient: () => dyingClient(2, false) });
    await expect(undoChangeSetForOwner(request)).rejects.toThrow(SimulatedDeath);
    setChangeDepsForTests({ siteClient: () => wp.admin });
    expect((await getChangeSet(request)).status).toBe("undoing");
    expect(await resumeInterruptedRuns({ siteClient: () => wp.admin })).toBe(1);
    expect((await showChangeSetForOwner(request)).status).toBe("undone");
    const undone = await writes();
    for (const id of ids) expect(undone[id]! - (before[id] ?? 0), `writes to page ${id}`).toBe(2);
    for (const html of await contents(ids)) expect(html).toContain("555-0100");
    const items = await getChangeSetItems(job.changeSetId);
    expect(items.every((item) => item.status === "undone")).toBe(true);
  });

  it("finishes a turn's approval that died after WordPress wrote it, without writing again", async () => {
    const [id] = await pages(1, `durable-turn-${Date.now()}`);
    const current = await readItem(wp.admin, `post:${id}`);
    const planned = planPostUpdate(current, { title: "Opening hours" }, "Renamed the page.");
    const scope = { userId, siteId, conversationId: randomUUID(), turnId: randomUUID(), target: "live" as const };
    const { changeSetId } = await recordPendingPlan(scope, "call-1", [planned]);
    const before = (await writes())[id!] ?? 0;

    await expect(approvePendingChangeSet({ userId, siteId, changeSetId }, dyingClient(1, true))).rejects.toThrow(
      SimulatedDeath,
    );
    expect((await getChangeSet({ userId, siteId, changeSetId })).status).toBe("applying");
    expect(await resumeInterruptedRuns({ siteClient: () => wp.admin, changeSetId })).toBe(1);
    const set = await showChangeSetForOwner({ userId, siteId, changeSetId });
    expect(set.status).toBe("applied");
    expect(set.resumedAt).toBeDefined();
    expect(((await writes())[id!] ?? 0) - before).toBe(1);
    expect((await readItem(wp.admin, `post:${id}`)).title).toBe("Opening hours");
    const audit = await listChangeAudit({ changeSetId });
    expect(audit.some((row) => row.action === "write" && row.detail?.includes("after a restart"))).toBe(true);
  });

  it("is taken over when the owner opens the change set, without waiting for the sweeper", async () => {
    const [id] = await pages(1, `durable-read-${Date.now()}`);
    const current = await readItem(wp.admin, `post:${id}`);
    const planned = planPostUpdate(current, { title: "Read title" }, "Renamed the page.");
    const scope = { userId, siteId, conversationId: randomUUID(), turnId: randomUUID(), target: "live" as const };
    const { changeSetId } = await recordPendingPlan(scope, "call-1", [planned]);
    await expect(approvePendingChangeSet({ userId, siteId, changeSetId }, dyingClient(1, false))).rejects.toThrow(
      SimulatedDeath,
    );
    expect((await showChangeSetForOwner({ userId, siteId, changeSetId })).status).toBe("applying");
    await vi.waitFor(async () => expect((await getChangeSet({ userId, siteId, changeSetId })).status).toBe("applied"), {
      timeout: 60_000,
      interval: 500,
    });
    expect((await readItem(wp.admin, `post:${id}`)).title).toBe("Read title");
  });

  it("skips, and names, an item a person changed while the dead run's batch was unwritten", async () => {
    const [id] = await pages(1, `durable-drift-${Date.now()}`);
    const current = await readItem(wp.admin, `post:${id}`);
    const planned = planPostUpdate(current, { title: "Planned title" }, "Renamed the page.");
    const scope = { userId, siteId, conversationId: randomUUID(), turnId: randomUUID(), target: "live" as const };
    const { changeSetId } = await recordPendingPlan(scope, "call-1", [planned]);
    await expect(approvePendingChangeSet({ userId, siteId, changeSetId }, dyingClient(1, false))).rejects.toThrow(
      SimulatedDeath,
    );
    await php("wp_update_post(array('ID' => (int) $args, 'post_title' => 'A person’s title'));", id);
    expect(await resumeInterruptedRuns({ siteClient: () => wp.admin, changeSetId })).toBe(1);
    const set = await showChangeSetForOwner({ userId, siteId, changeSetId });
    expect(set.items[0]?.status).toBe("failed");
    expect((await readItem(wp.admin, `post:${id}`)).title).toBe("A person’s title");
  });

  it("a chat card whose write's answer is lost while the process lives: what landed is recorded, nothing is written later", async () => {
    const [landed, lost] = await pages(2, `durable-card-${Date.now()}`);
    const before = await writes();
    const approve = async (id: number, title: string, client: SiteClient) => {
      const planned = planPostUpdate(await readItem(wp.admin, `post:${id}`), { title }, "Renamed the page.");
      const scope = { userId, siteId, conversationId: randomUUID(), turnId: randomUUID(), target: "live" as const };
      const { changeSetId } = await recordPendingPlan(scope, "call-1", [planned]);
      const ctx = { scope, client, plans: new Map(), emitChange: () => {}, approvedToolCalls: new Set(["call-1"]) };
      return { changeSetId, result: writeApprovedPlan(ctx, "call-1") };
    };

    // WordPress wrote it, the answer never came back: the card's run finds it on the site and records it written.
    const first = await approve(landed!, "Landed title", dyingClient(1, true));
    await expect(first.result).resolves.toMatchObject({ summary: "Renamed the page." });
    expect((await getChangeSetItems(first.changeSetId)).map((i) => i.status)).toEqual(["applied"]);
    expect(await findRunningRun(first.changeSetId)).toBeUndefined();

    // The request never reached WordPress: the card is closed `failed` and no run is left for a sweeper to write.
    const second = await approve(lost!, "Lost title", dyingClient(1, false));
    await expect(second.result).rejects.toThrow();
    expect((await getChangeSetItems(second.changeSetId)).map((i) => i.status)).toEqual(["failed"]);
    expect(await findRunningRun(second.changeSetId)).toBeUndefined();
    expect(await resumeInterruptedRuns({ siteClient: () => wp.admin, changeSetId: second.changeSetId })).toBe(0);

    const after = await writes();
    expect((after[landed!] ?? 0) - (before[landed!] ?? 0)).toBe(1);
    expect((after[lost!] ?? 0) - (before[lost!] ?? 0)).toBe(0);
    expect((await readItem(wp.admin, `post:${lost}`)).title).not.toBe("Lost title");
  });
});

describe("an Apply whose process dies after its claim, before its run is recorded", () => {
  // A chat card's Approve claims its items in the transaction that records its run (approveCallAsRun): there is no
  // moment with items `writing` and no run, so no death can leave one.
  it("claims a card's items with its run's record, all or none: one item taken already claims none and records no run", async () => {
    const ids = await pages(2, `durable-card-${Date.now()}`);
    const planned = await Promise.all(
      ids.map(async (id) =>
        planPostUpdate(await readItem(wp.admin, `post:${id}`), { title: `Card ${id}` }, "Renamed."),
      ),
    );
    const scope = { userId, siteId, conversationId: randomUUID(), turnId: randomUUID(), target: "live" as const };
    const { changeSetId } = await recordPendingPlan(scope, "call-1", planned);
    const items = await getChangeSetItems(changeSetId);
    // Another tab's click took the second item.
    await transitionChangeItems({ ids: [items[1]!.id], from: "pending", to: "writing", now: now() });
    const take = { ids: items.map((i) => i.id), from: "pending" as const, to: "writing" as const };
    await expect(
      startRun({ kind: "approve", mode: "atomic", changeSetId, userId, siteId, entries: [], take }),
    ).rejects.toThrow(ClaimTakenError);
    expect((await getChangeSetItems(changeSetId)).map((i) => i.status)).toEqual(["pending", "writing"]);
    expect(await findRunningRun(changeSetId)).toBeUndefined();
  });

  // The review page's Approve and Undo of a turn's set, and a queue's Undo without a job, claim theirs the same way.
  const turnSet = async (count: number, tag: string) => {
    const ids = await pages(count, `${tag}-${Date.now()}`);
    const planned = await Promise.all(
      ids.map(async (id) =>
        planPostUpdate(await readItem(wp.admin, `post:${id}`), { title: `${tag} ${id}` }, "Renamed."),
      ),
    );
    const scope = { userId, siteId, conversationId: randomUUID(), turnId: randomUUID(), target: "live" as const };
    const { changeSetId } = await recordPendingPlan(scope, "call-1", planned);
    return { ids, request: { userId, siteId, changeSetId }, items: await getChangeSetItems(changeSetId) };
  };
  const statuses = async (changeSetId: string) => (await getChangeSetItems(changeSetId)).map((i) => i.status);
  const writesTo = async (ids: number[], before: Record<string, number>) => {
    const after = await writes();
    return ids.map((id) => (after[id] ?? 0) - (before[id] ?? 0));
  };

  it("the review page's Approve and Undo claim in their run's record: one item taken by another tab claims none, records no run", async () => {
    const { ids, request, items } = await turnSet(2, "review-taken");
    const before = await writes();
    let audited = false;
    const recorded = async () => {
      audited = true;
    };
    // Another tab's click took the second item between this click's read and its run's record.
    await transitionChangeItems({ ids: [items[1]!.id], from: "pending", to: "writing", now: now() });
    await expect(approveAsRun(request, items, wp.admin, false, { take: true, recorded })).rejects.toThrow(
      ClaimTakenError,
    );
    expect(await statuses(request.changeSetId)).toEqual(["pending", "writing"]);
    expect(await findRunningRun(request.changeSetId)).toBeUndefined();
    expect(audited).toBe(false);
    await transitionChangeItems({ ids: [items[1]!.id], from: "writing", to: "pending", now: now() });

    await approvePendingChangeSet(request, wp.admin);
    const applied = await getChangeSetItems(request.changeSetId);
    await transitionChangeItems({ ids: [items[0]!.id], from: "applied", to: "undoing", now: now() });
    await expect(undoAsRun(request, applied, wp.admin, false, { take: true })).rejects.toThrow(ClaimTakenError);
    expect(await statuses(request.changeSetId)).toEqual(["undoing", "applied"]);
    expect(await findRunningRun(request.changeSetId)).toBeUndefined();
    expect(await writesTo(ids, before)).toEqual([1, 1]);
  });

  it("the review page's Approve and Undo, clicked in two tabs at once, write and undo each page exactly once", async () => {
    const { ids, request, items } = await turnSet(2, "review-once");
    const before = await writes();
    const approvals = await Promise.allSettled([
      approvePendingChangeSet(request, wp.admin),
      approvePendingChangeSet(request, wp.admin),
    ]);
    expect(approvals.map((a) => a.status).sort()).toEqual(["fulfilled", "rejected"]);
    const refused = approvals.find((a) => a.status === "rejected") as PromiseRejectedResult;
    expect(String(refused.reason)).toMatch(/being approved already|Nothing in this change set waits/);
    expect(await statuses(request.changeSetId)).toEqual(["applied", "applied"]);
    expect(await writesTo(ids, before)).toEqual([1, 1]);
    const audit = await listChangeAudit({ changeSetId: request.changeSetId });
    const approved = audit.filter((row) => row.action === "approve");
    expect(approved).toHaveLength(1);
    expect([...approved[0]!.itemIds].sort()).toEqual(items.map((i) => i.id).sort());

    const undos = await Promise.allSettled([undoChangeSetForOwner(request), undoChangeSetForOwner(request)]);
    expect(undos.map((u) => u.status).sort()).toEqual(["fulfilled", "rejected"]);
    const second = undos.find((u) => u.status === "rejected") as PromiseRejectedResult;
    expect(String(second.reason)).toMatch(/being undone already|Nothing in this change set can be undone/);
    expect(await statuses(request.changeSetId)).toEqual(["undone", "undone"]);
    expect(await writesTo(ids, before)).toEqual([2, 2]);
    expect(await findRunningRun(request.changeSetId)).toBeUndefined();
  });

  it("a queue's Undo without a job leaves out an item another tab took, and writes nothing when it took them all", async () => {
    const { ids, request, items } = await turnSet(2, "queue-undo");
    await approvePendingChangeSet(request, wp.admin);
    const before = await writes();
    await transitionChangeItems({ ids: [items[0]!.id], from: "applied", to: "undoing", now: now() });
    await undoQueue(request, wp.admin);
    expect(await statuses(request.changeSetId)).toEqual(["undoing", "undone"]);
    expect(await writesTo(ids, before)).toEqual([0, 1]);
    await expect(undoQueue({ ...request, itemIds: [items[0]!.id] }, wp.admin)).rejects.toThrow(
      "None of those items is written",
    );
    await transitionChangeItems({ ids: [items[0]!.id], from: "undoing", to: "applied", now: now() });
    // Every chosen item taken between the read and the run's record: claimed none, no run.
    const take = { ids: [items[0]!.id, items[1]!.id], from: "applied" as const, to: "undoing" as const };
    await expect(startRun({ kind: "undo", mode: "queue", ...request, entries: [], take })).rejects.toThrow(
      ClaimTakenError,
    );
    expect(await statuses(request.changeSetId)).toEqual(["applied", "undone"]);
    expect(await findRunningRun(request.changeSetId)).toBeUndefined();
    await undoQueue(request, wp.admin);
    expect(await writesTo(ids, before)).toEqual([1, 1]);
  });

  // Simulated by taking the claim as applyJobItems and approveQueue do (the job `applying`, its items `writing`) and
  // going no further; the sweeper (resumeInterruptedRuns) is what the next instance runs.
  it("is released by the sweeper after the lease: the job waits for Apply again, which writes each page once", async () => {
    const tag = `durable-claim-${Date.now()}`;
    const ids = await pages(3, tag);
    const job = await startBulkJob({
      userId,
      siteId,
      conversationId: randomUUID(),
      client: wp.admin,
      spec: {
        description: "pages with the old number",
        selection: { type: "page", search: tag, status: "publish" },
        change: { kind: "replace", field: "content", find: "555-0100", replace: "555-0166" },
      },
    });
    await kickJobRunner();
    const request = { userId, siteId, changeSetId: job.changeSetId };
    expect((await findJobByChangeSet(job.changeSetId))?.status).toBe("ready");
    const before = await writes();

    const items = await getChangeSetItems(job.changeSetId);
    await transitionJob({ id: job.id, from: ["ready"], to: "applying", now: now() });
    const claimed = items.map((i) => i.id);
    expect(await transitionChangeItems({ ids: claimed, from: "pending", to: "writing", now: now() })).toHaveLength(3);
    expect(await findRunningRun(job.changeSetId)).toBeUndefined();

    expect(await resumeInterruptedRuns({ siteClient: () => wp.admin })).toBe(0);
    expect((await findJobByChangeSet(job.changeSetId))?.status).toBe("applying");
    try {
      advanceClockForTests((env().CHANGE_RUN_LEASE_SECONDS + 1) * 1000);
      expect(await resumeInterruptedRuns({ siteClient: () => wp.admin })).toBe(0);
      expect((await findJobByChangeSet(job.changeSetId))?.status).toBe("ready");
      expect((await getChangeSetItems(job.changeSetId)).map((i) => i.status)).toEqual([
        "pending",
        "pending",
        "pending",
      ]);
      // The stalled process, waking up after the release, records no run over it (so it cannot write).
      await expect(
        startRun({
          kind: "approve",
          mode: "queue",
          changeSetId: job.changeSetId,
          jobId: job.id,
          userId,
          siteId,
          entries: [],
          claim: { jobId: job.id, writing: claimed },
        }),
      ).rejects.toThrow(ClaimReleasedError);

      await applyChangeSetForOwner(request);
    } finally {
      resetClockForTests();
    }
    const done = await showJobForOwner({ userId, siteId, jobId: job.id });
    expect(done).toMatchObject({ status: "done", progress: { applied: 3 } });
    expect((await showChangeSetForOwner(request)).status).toBe("applied");
    const after = await writes();
    for (const id of ids) expect(after[id]! - (before[id] ?? 0), `writes to page ${id}`).toBe(1);
    expect(await contents(ids)).toEqual(
      ids.map(() => "<!-- wp:paragraph --><p>Call us on 555-0166.</p><!-- /wp:paragraph -->"),
    );
  });
});
