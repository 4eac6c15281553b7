/**
 * Bulk jobs in sandbox mode, against the real WordPress with our plugin as the live site, real Podman sandboxes and
 * PostgreSQL; only the language model is scripted. A sandbox-mode chat turn starts a job: the selection is counted
 * on the live site, the pages (drafts the first copy did not bring included) are copied into the conversation's
 * sandbox and every one is written there, the live site untouched; Apply replays them on the live site in batches
 * (more than one plugin batch holds), skipping and naming a page a person edited on the live site meanwhile; one Undo
 * puts the live site back. A runner taking over a half-finished sandbox job writes nothing twice, and an Apply whose
 * process died after its first batch is finished by the next instance, each page written once.
 */
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { POST as chatRoute } from "@/app/chat/route";
import { GET as previewRoute } from "@/app/preview/[sandboxId]/[[...path]]/route";
import { setAgentModelForTests } from "@/lib/agent/model";
import { scriptedModel } from "@/lib/agent/testing/scripted-model";
import { ITEMS_ROUTE, readItems } from "@/lib/sites/items";
import { humanEditPost } from "@/test/changes";
import { getDb } from "@/lib/db";
import {
  claimRehearsalsForApply,
  findJobByChangeSet,
  findRunningRun,
  findSandboxManifest,
  findSiteForUser,
  getChangeSetItems,
  insertConversation,
  listChangeAudit,
  listRunEntries,
  transitionJob,
} from "@/lib/db/queries";
import { advanceClockForTests, now, resetClockForTests } from "@/lib/clock";
import { env } from "@/lib/env";
import { changeItems, jobs } from "@/lib/db/schema";
import { useTestDatabase } from "@/lib/db/testing";
import type { JobSpec } from "@/lib/jobs/spec";
import { setSandboxManagerForTests } from "@/lib/sandbox";
import { createTestSandboxes, type TestSandboxes } from "@/lib/sandbox/testing";
import { siteClientFor } from "@/lib/sites/sites";
import type { SiteClient } from "@/lib/sites/types";
import { newUser } from "@/test/accounts";
import { type AgentTestSite, type Chunk, pairAgentSite, parseUiStream, startAgentSite } from "@/test/agent-site";
import { call } from "@/test/http";
import { postWriteCounter, runAsAdmin } from "@/test/wordpress";
import { kickJobRunner, showJobForOwner, startBulkJob } from "./bulk-job";
import { applyChangeSetForOwner, showChangeSetForOwner, undoChangeSetForOwner } from "./change-set-actions";
import { setChatDepsForTests } from "./chat-turn";
import { applyJobRehearsal } from "./job-rehearsal";
import { resumeInterruptedRuns } from "./resume-runs";

useTestDatabase();
// Dozens of pages copied, written in a sandbox and on the live site, then undone: minutes on a loaded machine.
vi.setConfig({ testTimeout: 600_000 });

const APP = "http://localhost:3000";
let wp: AgentTestSite;
let t: TestSandboxes;
let owner: { cookie: string; id: string };
let siteId: string;
let live: SiteClient;

beforeAll(async () => {
  wp = await startAgentSite();
  owner = await newUser("sandbox-jobs");
  siteId = await pairAgentSite(wp, owner.id);
  live = siteClientFor((await findSiteForUser({ userId: owner.id, siteId }))!);
  t = createTestSandboxes(
    { poolSize: 1, appUrl: APP },
    { siteSource: async () => ({ client: live, site: { id: siteId, url: wp.local.url } }) },
  );
  await t.manager.image();
  await t.manager.fillPool();
  await setSandboxManagerForTests(t.manager);
  setChatDepsForTests({
    sandboxesEnabled: () => true,
    limits: () => ({ maxSteps: 4, maxToolCalls: 4, maxTokens: 100_000, timeoutMs: 120_000 }),
  });
}, 300_000);

afterAll(async () => {
  setChatDepsForTests(undefined);
  setAgentModelForTests(undefined);
  await setSandboxManagerForTests(undefined);
  await t?.cleanup();
  await wp?.local.stop();
});

const php = <T>(body: string, args: unknown = null) => runAsAdmin<T>(wp.local.wpPath, body, args);

/** `count` pages with the old phone number, `status` each; returns their ids. */
const pages = (count: number, status: string, tag: string) =>
  php<number[]>(
    `$ids = array(); for ($i = 1; $i <= (int) $args[0]; $i++) { $ids[] = wp_insert_post(array('post_type' => 'page', 'post_status' => $args[1], 'post_title' => $args[2] . ' ' . $i, 'post_content' => '<!-- wp:paragraph --><p>Call us on 555-0100 (' . $args[2] . ').</p><!-- /wp:paragraph -->')); } echo json_encode($ids);`,
    [count, status, tag],
  );
const liveContent = (id: number) => php<string>("echo json_encode(get_post((int) $args)->post_content);", id);
/** Many pages' content in one PHP process (one per page costs minutes on a loaded machine). */
async function liveContents(ids: number[]): Promise<string[]> {
  return php<string[]>(
    "echo json_encode(array_map(function ($id) { return get_post((int) $id)->post_content; }, $args));",
    ids,
  );
}
const revisions = (id: number) => php<number>("echo json_encode(count(wp_get_post_revisions((int) $args)));", id);

/** The sandbox's content of live pages, through the manifest's live → sandbox ids. */
async function sandboxContents(sandboxId: string, liveIds: number[]): Promise<Map<number, string>> {
  const manifest = await findSandboxManifest({ sandboxId });
  const local = new Map(
    manifest!.items.filter((i) => i.liveRef?.startsWith("post:")).map((i) => [Number(i.sourceId), Number(i.sandboxId)]),
  );
  const client = await t.clientFor(sandboxId);
  const out = new Map<number, string>();
  for (let start = 0; start < liveIds.length; start += 50) {
    const batch = liveIds.slice(start, start + 50);
    const items = await readItems(
      client,
      batch.map((id) => `post:${local.get(id) ?? 0}`),
    );
    for (const [index, id] of batch.entries()) out.set(id, String(items[index]?.state?.content ?? ""));
  }
  return out;
}

const replaceSpec = (tag: string, status: "any" | "draft", replace: string): JobSpec => ({
  description: `pages with the old number (${tag})`,
  selection: { type: "page", search: tag, status },
  change: { kind: "replace", field: "content", find: "555-0100", replace },
});

async function closeOwnersSandboxes() {
  for (const open of await t.manager.listSandboxes({ userId: owner.id })) {
    await t.manager.deleteSandbox({ userId: owner.id, id: open.id });
  }
}

describe("bulk jobs in sandbox mode", () => {
  it("rehearses a job over 55 pages in the sandbox, applies it in batches skipping a person's edit, undoes as one", async () => {
    const tag = "sbxjob";
    const published = await pages(45, "publish", tag);
    const drafts = await pages(10, "draft", tag); // not in the first copy: copied in as the job reaches them
    const all = [...published, ...drafts];
    setAgentModelForTests(
      scriptedModel([
        { toolCalls: [{ name: "start_bulk_job", input: replaceSpec(tag, "any", "555-0199") }] },
        { text: "Started in the sandbox." },
      ]),
    );
    let started = performance.now();
    const res = await call(chatRoute, {
      body: { siteId, message: "Replace our old phone number everywhere", mode: "sandbox" },
      cookie: owner.cookie,
      path: "/chat",
      headers: { origin: APP },
    });
    expect(res.status).toBe(200);
    const chunks: Chunk[] = parseUiStream(res.text);
    const part = chunks.find((c) => c.type === "data-job") as unknown as { data: { id: string; changeSetId: string } };
    expect(part, res.text.slice(0, 2000)).toBeDefined();
    const finish = chunks.find((c) => c.type === "finish") as { messageMetadata?: Record<string, unknown> };
    const sandboxId = finish.messageMetadata?.sandboxId as string;
    expect(finish.messageMetadata?.mode).toBe("sandbox");

    await kickJobRunner();
    const planMs = performance.now() - started;
    const job = await showJobForOwner({ userId: owner.id, siteId, jobId: part.data.id });
    expect(job).toMatchObject({ status: "ready", selection: { count: 55 } });
    expect(job.progress).toMatchObject({ planned: 55, applied: 0, skipped: 0 });
    const rehearsal = await showChangeSetForOwner({ userId: owner.id, siteId, changeSetId: job.changeSetId });
    expect(rehearsal).toMatchObject({ target: "sandbox", sandboxId, status: "pending" });
    expect(rehearsal.items).toHaveLength(55);

    // The live site is untouched; the sandbox holds every change, drafts included; the preview shows it.
    for (const text of await liveContents(all)) expect(text).toContain("555-0100");
    const inSandbox = await sandboxContents(sandboxId, all);
    for (const id of all) expect(inSandbox.get(id)).toContain("555-0199");
    const manifest = await findSandboxManifest({ sandboxId });
    const shown = await call(previewRoute, {
      path: `/preview/${sandboxId}/${tag}-1/`,
      cookie: owner.cookie,
      params: { sandboxId },
    });
    expect(shown.status).toBe(200);
    expect(shown.text).toContain("Call us on 555-0199");

    // A person edits one page on the live site between the plan and Apply.
    await humanEditPost(wp.local.wpPath, published[3]!, { content: "<p>Call Ana on 555-0100.</p>" });
    const request = { userId: owner.id, siteId, changeSetId: job.changeSetId };
    const edited = rehearsal.items.find((i) => i.targetId === `post:${sandboxIdOf(manifest!.items, published[3]!)}`)!;
    started = performance.now();
    const applied = await applyChangeSetForOwner(request);
    const applyMs = performance.now() - started;
    expect(applied).toMatchObject({ target: "live", status: "applied" });
    expect(applied.skipped).toEqual([
      { id: edited.id, title: `${tag} 4`, reason: expect.stringContaining("changed it on the site") },
    ]);
    // 54 items: more than one plugin batch (50) holds, so this only passes when Apply writes in batches.
    expect(applied.items).toHaveLength(54);
    expect(await liveContent(published[3]!)).toBe("<p>Call Ana on 555-0100.</p>");
    const others = all.filter((id) => id !== published[3]);
    for (const text of await liveContents(others)) expect(text).toContain("555-0199");
    expect(await showChangeSetForOwner(request)).toMatchObject({ status: "partially_applied" });
    expect(await showJobForOwner({ userId: owner.id, siteId, jobId: job.id })).toMatchObject({
      status: "done",
      progress: { planned: 55, applied: 54, skipped: 1 },
    });
    await expect(applyChangeSetForOwner(request)).rejects.toMatchObject({ code: "not_applicable" });

    // Undo as one: every applied page back, the person's edit kept.
    started = performance.now();
    const undone = await undoChangeSetForOwner({ userId: owner.id, siteId, changeSetId: applied.id });
    const undoMs = performance.now() - started;
    // docs/performance.md, "Bulk jobs in sandbox mode".
    console.info(
      `sandbox job: message to job ready (first copy, 10 drafts copied in, 55 written in the sandbox) ${Math.round(planMs)} ms; apply 54 ${Math.round(applyMs)} ms; undo 54 ${Math.round(undoMs)} ms`,
    );
    expect(undone.skipped).toEqual([]);
    expect(undone.status).toBe("undone");
    for (const text of await liveContents(others)) expect(text).toContain("555-0100");
    expect(await liveContent(published[3]!)).toBe("<p>Call Ana on 555-0100.</p>");
  });

  it("takes over a sandbox job a crashed runner left, finishing recorded writes without writing them twice", async () => {
    await closeOwnersSandboxes();
    const tag = "sbxresume";
    const drafts = await pages(30, "draft", tag);
    const conversationId = randomUUID();
    await insertConversation({ id: conversationId, userId: owner.id, siteId, title: tag, now: new Date() });
    const rehearsal = await t.manager.rehearsal({ userId: owner.id, siteId, conversationId, live });
    const started = await startBulkJob({
      userId: owner.id,
      siteId,
      conversationId,
      spec: replaceSpec(tag, "draft", "555-0142"),
      client: live,
      sandboxId: rehearsal.sandbox.id,
    });
    await kickJobRunner();
    const items = await getChangeSetItems(started.changeSetId);
    expect(items).toHaveLength(30);
    expect(items.every((i) => i.status === "applied")).toBe(true);
    // As if a runner died after recording the last batch and writing it, before marking it written.
    const db = await getDb();
    const lastBatch = items.slice(25).map((i) => i.id);
    for (const id of lastBatch) await db.update(changeItems).set({ status: "writing" }).where(eq(changeItems.id, id));
    await db
      .update(jobs)
      .set({ status: "planning", cursor: 25, leaseOwner: "a-runner-that-died", leaseUntil: new Date(Date.now() - 1) })
      .where(eq(jobs.id, started.id));
    await kickJobRunner();
    const after = await getChangeSetItems(started.changeSetId);
    expect(after).toHaveLength(30); // the last batch was not planned again
    // Found written and recorded as such: a second write would have been refused as stale and the item failed.
    expect(after.every((i) => i.status === "applied")).toBe(true);
    expect((await showJobForOwner({ userId: owner.id, siteId, jobId: started.id })).status).toBe("ready");
    expect(await findJobByChangeSet(started.changeSetId)).toMatchObject({ leaseOwner: null });
    for (const text of await liveContents(drafts)) expect(text).toContain("555-0100"); // live untouched
    expect(await revisions(drafts[0]!)).toBe(0);
    const inSandbox = await sandboxContents(rehearsal.sandbox.id, drafts);
    for (const id of drafts) expect(inSandbox.get(id)).toContain("555-0142");

    // What Apply cannot replay from a sandbox is refused before anything runs, with a sentence to repeat.
    await expect(
      startBulkJob({
        userId: owner.id,
        siteId,
        conversationId,
        spec: {
          description: "images without alt text",
          selection: { type: "media", status: "any", missing: "alt" },
          change: { kind: "set", field: "alt", template: "{title}" },
        },
        client: live,
        sandboxId: rehearsal.sandbox.id,
      }),
    ).rejects.toThrow(/live mode/);
  });

  // Simulated at the journal's boundary (lib/changes/journal.ts), as lib/sandbox/rehearsal.test.ts does: the run is
  // recorded, the first batch reached WordPress and was written, the process stops before reading the answer. The
  // takeover is resumeInterruptedRuns, the same code the next instance's sweeper runs after a restart
  // (test/reliability/apply-restart.test.ts kills a real process).
  it("finishes a sandbox job's Apply that died after its first batch: each page written once, skips named, undo restores", async () => {
    await closeOwnersSandboxes();
    const writes = postWriteCounter(wp.local.wpPath);
    const tag = "sbxcrash";
    const all = await pages(30, "publish", tag); // two of the run's batches (25 each)
    const conversationId = randomUUID();
    await insertConversation({ id: conversationId, userId: owner.id, siteId, title: tag, now: new Date() });
    const rehearsal = await t.manager.rehearsal({ userId: owner.id, siteId, conversationId, live });
    const started = await startBulkJob({
      userId: owner.id,
      siteId,
      conversationId,
      spec: replaceSpec(tag, "any", "555-0177"),
      client: live,
      sandboxId: rehearsal.sandbox.id,
    });
    await kickJobRunner();
    const changeSetId = started.changeSetId;
    expect(await findJobByChangeSet(changeSetId)).toMatchObject({ status: "ready" });

    // A person edits one page before the Apply; the live site counts Sitewright's writes from here.
    const editedBefore = all[5]!;
    await humanEditPost(wp.local.wpPath, editedBefore, { content: "<p>Call Bo on 555-0100.</p>" });
    await writes.watch(all);

    let died = false;
    const dying: SiteClient = {
      get: (route, query) => live.get(route, query),
      put: (route, body) => live.put(route, body),
      delete: (route, query) => live.delete(route, query),
      post: async (route, body) => {
        if (route !== ITEMS_ROUTE || died) return live.post(route, body);
        await live.post(route, body); // a refused batch throws here, as the site answered it
        died = true;
        throw new SimulatedDeath();
      },
    };
    const request = { userId: owner.id, siteId, changeSetId };
    const job = (await findJobByChangeSet(changeSetId))!;
    await expect(applyJobRehearsal(request, dying, t.manager.rehearsals(), job)).rejects.toThrow(SimulatedDeath);
    // Read from the store: the owner's read of the job would take the run over at once.
    expect(await findJobByChangeSet(changeSetId)).toMatchObject({ status: "applying" });
    const run = (await findRunningRun(changeSetId))!;
    expect(run).toMatchObject({ kind: "replay", mode: "queue", jobId: job.id });
    const entries = await listRunEntries(run.id);
    expect(entries).toHaveLength(30);
    const firstBatch = entries.filter((e) => e.batch === 0 && e.state === "writing");
    expect(firstBatch.length).toBeGreaterThanOrEqual(24); // sent, its answer never read
    expect(entries.filter((e) => e.batch === 1).every((e) => e.state === "pending")).toBe(true);
    const idOf = (ref: string) => Number(ref.split(":")[1]);
    for (const text of await liveContents(firstBatch.map((e) => idOf(e.change.ref))))
      expect(text).toContain("555-0177");

    // Another person edits a page of the batch not sent yet, before the next instance takes over.
    const editedAfter = idOf(entries.find((e) => e.batch === 1 && idOf(e.change.ref) !== editedBefore)!.change.ref);
    await humanEditPost(wp.local.wpPath, editedAfter, { content: "<p>Call Cy on 555-0100.</p>" });

    expect(await resumeInterruptedRuns({ siteClient: () => live, changeSetId })).toBe(1);
    const counts = await writes.counts();
    const written = all.filter((id) => id !== editedBefore && id !== editedAfter);
    // Each page written once; the page edited after the crash holds one write, the person's (its content below).
    expect(counts).toEqual(Object.fromEntries([...written, editedAfter].map((id) => [String(id), 1])));
    for (const text of await liveContents(written)) expect(text).toContain("555-0177");
    expect(await liveContent(editedBefore)).toBe("<p>Call Bo on 555-0100.</p>");
    expect(await liveContent(editedAfter)).toBe("<p>Call Cy on 555-0100.</p>");

    const shownJob = await showJobForOwner({ userId: owner.id, siteId, jobId: job.id });
    expect(shownJob).toMatchObject({ status: "done", progress: { planned: 30, applied: 28, skipped: 2 } });
    expect(shownJob.resumedAt).toBeDefined();
    expect(await showChangeSetForOwner(request)).toMatchObject({ status: "partially_applied" });
    const rehearsed = await getChangeSetItems(changeSetId);
    expect(rehearsed.filter((i) => i.status === "failed")).toHaveLength(2);
    // The skipped pages are named (as the sandbox copied them) in the Apply's one audit row.
    const audit = (await listChangeAudit({ changeSetId })).filter((row) => row.action === "apply");
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ outcome: "partial" });
    expect(audit[0]!.detail).toContain("Finished after a restart.");
    expect(audit[0]!.detail).toContain(`${tag} 6: A person changed it on the site`);
    const afterTitle = `${tag} ${all.indexOf(editedAfter) + 1}`;
    expect(audit[0]!.detail).toContain(`${afterTitle}: A person changed it on the site`);

    // One live change set, recorded once, holds every written page; one Undo puts them all back.
    const liveSets = new Set(rehearsed.flatMap((i) => (i.madeLiveBy ? [i.madeLiveBy] : [])));
    expect(liveSets.size).toBe(1);
    const liveSetId = [...liveSets][0]!;
    const liveItems = await getChangeSetItems(liveSetId);
    expect(liveItems.map((i) => i.ref).sort()).toEqual(written.map((id) => `post:${id}`).sort());
    expect(liveItems.every((i) => i.status === "applied")).toBe(true);
    const undone = await undoChangeSetForOwner({ userId: owner.id, siteId, changeSetId: liveSetId });
    expect(undone).toMatchObject({ status: "undone", skipped: [] });
    for (const text of await liveContents(written)) expect(text).toContain("Call us on 555-0100");
    expect(await liveContent(editedBefore)).toBe("<p>Call Bo on 555-0100.</p>");
    expect(await liveContent(editedAfter)).toBe("<p>Call Cy on 555-0100.</p>");
    await writes.stop();
  });

  // The process dies after the Apply's claim (the rehearsal and the job `applying`) while it reads the sandbox and the
  // live states, before its run is recorded: simulated by taking the claim as applyJobRehearsal does and going no
  // further. The next instance's sweeper (resumeInterruptedRuns) releases it once the lease has passed.
  it("releases a sandbox job's Apply claim that no run followed, after the lease; Apply again writes each page once", async () => {
    await closeOwnersSandboxes();
    const writes = postWriteCounter(wp.local.wpPath);
    const tag = "sbxclaim";
    const all = await pages(4, "publish", tag);
    const conversationId = randomUUID();
    await insertConversation({ id: conversationId, userId: owner.id, siteId, title: tag, now: new Date() });
    const rehearsal = await t.manager.rehearsal({ userId: owner.id, siteId, conversationId, live });
    const started = await startBulkJob({
      userId: owner.id,
      siteId,
      conversationId,
      spec: replaceSpec(tag, "any", "555-0188"),
      client: live,
      sandboxId: rehearsal.sandbox.id,
    });
    await kickJobRunner();
    const changeSetId = started.changeSetId;
    const job = (await findJobByChangeSet(changeSetId))!;
    expect(job).toMatchObject({ status: "ready" });
    await writes.watch(all);

    expect(await claimRehearsalsForApply({ ids: [changeSetId], userId: owner.id, now: now() })).toBeDefined();
    await transitionJob({ id: job.id, from: ["ready"], to: "applying", now: now() });
    const request = { userId: owner.id, siteId, changeSetId };
    expect(await findRunningRun(changeSetId)).toBeUndefined();

    // Within the lease the claim may be a live process's, still reading: kept.
    expect(await resumeInterruptedRuns({ siteClient: () => live, changeSetId })).toBe(0);
    expect(await findJobByChangeSet(changeSetId)).toMatchObject({ status: "applying" });
    try {
      advanceClockForTests((env().CHANGE_RUN_LEASE_SECONDS + 1) * 1000);
      expect(await resumeInterruptedRuns({ siteClient: () => live, changeSetId })).toBe(0);
      expect(await findJobByChangeSet(changeSetId)).toMatchObject({ status: "ready" });
      expect(await showChangeSetForOwner(request)).toMatchObject({ status: "pending" });
      // The rehearsal's items still wait for Apply: nothing was written.
      expect((await getChangeSetItems(changeSetId)).every((i) => i.status === "applied" && !i.madeLiveBy)).toBe(true);

      const again = (await findJobByChangeSet(changeSetId))!;
      const outcome = await applyJobRehearsal(request, live, t.manager.rehearsals(), again);
      expect(outcome.skipped).toEqual([]);
    } finally {
      resetClockForTests();
    }
    const counts = await writes.counts();
    expect(counts).toEqual(Object.fromEntries(all.map((id) => [String(id), 1])));
    for (const text of await liveContents(all)) expect(text).toContain("555-0188");
    expect(await showJobForOwner({ userId: owner.id, siteId, jobId: job.id })).toMatchObject({
      status: "done",
      progress: { planned: 4, applied: 4, skipped: 0 },
    });
    expect(await showChangeSetForOwner(request)).toMatchObject({ status: "applied" });
    await writes.stop();
  });
});

function sandboxIdOf(items: Array<{ liveRef?: string | null; sandboxId?: unknown }>, liveId: number) {
  return Number(items.find((i) => i.liveRef === `post:${liveId}`)?.sandboxId);
}

class SimulatedDeath extends Error {
  constructor() {
    super("the process died here");
    this.name = "SimulatedDeath";
  }
}
