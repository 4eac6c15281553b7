/**
 * A real process killed in the middle of an Apply, and of an Undo, on PostgreSQL and the real WordPress with our
 * plugin over https (API.md v1.3 "Durable writes"): a 150-page find-and-replace job is approved in a child process
 * (support/change-run-child.ts), which is SIGKILLed while WordPress writes its second batch of 25; a new process (the
 * next instance's start-up sweeper) takes the run over once its lease expires and finishes it. A must-use plugin
 * counts every update WordPress makes to each page: every page is written exactly once, the job reads `applied: 150`
 * and `resumedAt`. The same for the job's Undo, and for the chat's Approve of a card: a child writing three pages
 * (one of them a chain of two changes) is killed while WordPress writes the second, and the next process records
 * what landed without writing any page again.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { setDatabaseForTests } from "@/lib/db";
import { holdPlanForApproval, turnView, type WriteContext } from "@/lib/agent/writes";
import { planPostUpdate } from "@/lib/changes/plan";
import { findJobByChangeSet, findRunningRun, getChangeSetItems, listChangeAudit } from "@/lib/db/queries";
import { readItem } from "@/lib/sites/items";
import { createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { newUser } from "@/test/accounts";
import { type AgentTestSite, insertSiteRow, startAgentSite } from "@/test/agent-site";
import { installMuPlugin, runAsAdmin } from "@/test/wordpress";
import { kickJobRunner, setJobDepsForTests, startBulkJob } from "@/lib/workflows/bulk-job";
import { waitFor } from "./support/instances";

vi.setConfig({ testTimeout: 480_000 });

const PAGES = 150;
const BATCH = 25; // lib/changes/journal.ts RUN_BATCH
const repoRoot = path.resolve(import.meta.dirname, "../..");

let database: TestDatabase;
let wp: AgentTestSite;
const children: ChildProcess[] = [];

const php = <T>(body: string, args: unknown = null) => runAsAdmin<T>(wp.local.wpPath, body, args);
const writes = () => php<Record<string, number>>("echo json_encode((object) get_option('sw_test_writes', array()));");
const marker = () => path.join(wp.local.wpPath, "durable-slow.writing");

beforeAll(async () => {
  database = await createTestDatabase();
  await setDatabaseForTests(database.handle);
  wp = await startAgentSite();
  setJobDepsForTests({ siteClient: () => wp.admin });
  // Counts each page's updates; the write numbered `sw_test_slow_at` says so in a file, then takes 10 s.
  installMuPlugin(
    wp.local.wpPath,
    "count-writes.php",
    `<?php
add_action('post_updated', function ($id, $after) {
  if ('page' !== $after->post_type) { return; }
  $counts = get_option('sw_test_writes', array());
  $counts[$id] = ($counts[$id] ?? 0) + 1;
  update_option('sw_test_writes', $counts, false);
  $total = (int) get_option('sw_test_total', 0) + 1;
  update_option('sw_test_total', $total, false);
  if ($total === (int) get_option('sw_test_slow_at', 0)) { touch(ABSPATH . 'durable-slow.writing'); sleep(10); }
}, 10, 2);
`,
  );
}, 180_000);

afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  setJobDepsForTests(undefined);
  await setDatabaseForTests(undefined);
  await Promise.all([wp?.local.stop(), database?.drop()]);
});

/** A child process on the test's database; resolves when it has printed `FINISHED` (or rejects when it exits). */
function child(args: string[]) {
  const proc = spawn(process.execPath, ["--import", "tsx", "test/reliability/support/change-run-child.ts", ...args], {
    cwd: repoRoot,
    env: { ...process.env, DATABASE_URL: database.url, CHANGE_RUN_LEASE_SECONDS: "5", LOG_LEVEL: "error" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(proc);
  let output = "";
  proc.stdout!.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  proc.stderr!.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const finished = new Promise<void>((resolve, reject) => {
    proc.on("exit", (code, signal) =>
      output.includes("FINISHED")
        ? resolve()
        : reject(new Error(`child ${args[0]} exited ${code ?? signal}: ${output}`)),
    );
  });
  finished.catch(() => undefined);
  return { proc, finished, output: () => output };
}

/** Runs `action` in a child, kills it with SIGKILL while WordPress writes its second batch, then lets that finish. */
async function killDuringSecondBatch(action: "apply" | "undo", ids: string[], writesSoFar: number) {
  rmSync(marker(), { force: true });
  await php("update_option('sw_test_slow_at', (int) $args, false);", writesSoFar + BATCH + 1);
  const run = child([action, ...ids]);
  await waitFor(
    async () => existsSync(marker()),
    (seen) => seen,
    180_000,
    `the ${action}'s second batch to reach WordPress`,
  );
  run.proc.kill("SIGKILL");
  await new Promise((resolve) => run.proc.once("exit", resolve));
  // WordPress finishes the batch it started (its request does not die with the client).
  await waitFor(
    () => php<number>("echo (int) get_option('sw_test_total', 0);"),
    (total) => total === writesSoFar + 2 * BATCH,
    60_000,
    "WordPress to finish the second batch",
  );
}

it("a 150-page Apply and its Undo, each killed mid-run, are finished by the next process: every page written once", async () => {
  const tag = `restart-${Date.now()}`;
  const pages = await php<number[]>(
    `$ids = array(); for ($i = 1; $i <= ${PAGES}; $i++) { $ids[] = wp_insert_post(array('post_type' => 'page', 'post_status' => 'publish', 'post_title' => $args . ' ' . $i, 'post_content' => '<!-- wp:paragraph --><p>Call us on 555-0100.</p><!-- /wp:paragraph -->')); } echo json_encode($ids);`,
    tag,
  );
  await php("delete_option('sw_test_writes'); delete_option('sw_test_total');");
  const userId = (await newUser("restart")).id;
  const siteId = await insertSiteRow({ userId, url: wp.local.url, token: wp.token, secret: wp.secret, info: wp.info });
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
  expect((await findJobByChangeSet(job.changeSetId))?.status).toBe("ready");
  const ids = [userId, siteId, job.changeSetId];

  await killDuringSecondBatch("apply", ids, 0);
  expect((await findJobByChangeSet(job.changeSetId))?.status).toBe("applying");
  expect(await findRunningRun(job.changeSetId)).toBeDefined();
  await child(["sweep", job.changeSetId]).finished;
  const applied = await findJobByChangeSet(job.changeSetId);
  expect(applied).toMatchObject({ status: "done", progress: expect.objectContaining({ applied: PAGES, skipped: 0 }) });
  expect(applied?.resumedAt).toBeInstanceOf(Date);
  const once = await writes();
  for (const id of pages) expect(once[id], `writes to page ${id}`).toBe(1);
  const items = await getChangeSetItems(job.changeSetId);
  expect(items.filter((item) => item.status === "applied")).toHaveLength(PAGES);

  await killDuringSecondBatch("undo", ids, PAGES);
  await child(["sweep", job.changeSetId]).finished;
  const twice = await writes();
  for (const id of pages) expect(twice[id], `writes to page ${id}`).toBe(2);
  const undone = await getChangeSetItems(job.changeSetId);
  expect(undone.every((item) => item.status === "undone")).toBe(true);
  const texts = await php<string[]>(
    "echo json_encode(array_map(function ($id) { return get_post($id)->post_content; }, $args));",
    pages,
  );
  for (const text of texts) expect(text).toContain("555-0100");
});

it("a chat card's Approve killed while WordPress writes it is finished by the next process: every page written once", async () => {
  const tag = `chat-restart-${Date.now()}`;
  const pages = await php<number[]>(
    `$ids = array(); for ($i = 1; $i <= 3; $i++) { $ids[] = wp_insert_post(array('post_type' => 'page', 'post_status' => 'publish', 'post_title' => $args . ' ' . $i, 'post_content' => '<!-- wp:paragraph --><p>Old text.</p><!-- /wp:paragraph -->')); } echo json_encode($ids);`,
    tag,
  );
  await php("delete_option('sw_test_writes'); delete_option('sw_test_total');");
  const userId = (await newUser("chat-restart")).id;
  const siteId = await insertSiteRow({ userId, url: wp.local.url, token: wp.token, secret: wp.secret, info: wp.info });
  const scope = { userId, siteId, conversationId: randomUUID(), turnId: randomUUID(), target: "live" as const };
  let changeSetId = "";
  const ctx: WriteContext = {
    scope,
    client: wp.admin,
    plans: new Map(),
    emitChange: (card) => {
      changeSetId = card.changeSetId;
    },
  };
  // One card renames the three pages; a second card of the same turn rewrites the first page's text on top of it.
  const renames = await Promise.all(
    pages.map(async (id, index) =>
      planPostUpdate(await readItem(wp.admin, `post:${id}`), { title: `Renamed ${index + 1}` }, "Renamed the page."),
    ),
  );
  await holdPlanForApproval(ctx, "call_rename", { summary: "Renamed three pages.", items: renames });
  const onTop = planPostUpdate(
    await readItem(await turnView(ctx), `post:${pages[0]}`),
    { content: "<!-- wp:paragraph --><p>New text.</p><!-- /wp:paragraph -->" },
    "Rewrote the text.",
  );
  await holdPlanForApproval(ctx, "call_text", { summary: "Rewrote the text.", items: [onTop] });

  // The owner approves both cards; the child writing them dies while WordPress writes the second page.
  rmSync(marker(), { force: true });
  await php("update_option('sw_test_slow_at', 2, false);");
  const approving = child([
    "approve-call",
    userId,
    siteId,
    scope.conversationId,
    scope.turnId,
    "call_text",
    "call_rename",
  ]);
  await waitFor(
    async () => existsSync(marker()),
    (seen) => seen,
    120_000,
    "the approved write to reach WordPress",
  );
  approving.proc.kill("SIGKILL");
  await new Promise((resolve) => approving.proc.once("exit", resolve));
  await waitFor(
    () => php<number>("echo (int) get_option('sw_test_total', 0);"),
    (total) => total === 3,
    60_000,
    "WordPress to finish the batch",
  );
  expect(await findRunningRun(changeSetId)).toBeDefined();

  await child(["sweep", changeSetId]).finished;
  const once = await writes();
  for (const id of pages) expect(once[id], `writes to page ${id}`).toBe(1);
  const items = await getChangeSetItems(changeSetId);
  expect(items.map((item) => item.status)).toEqual(["applied", "applied", "applied", "applied"]);
  expect(items.every((item) => item.versionAfter)).toBe(true);
  const first = await readItem(wp.admin, `post:${pages[0]}`);
  expect(first.title).toBe("Renamed 1");
  expect(first.state?.content).toContain("New text.");
  expect((await readItem(wp.admin, `post:${pages[2]}`)).title).toBe("Renamed 3");
  const audit = await listChangeAudit({ changeSetId: changeSetId });
  expect(audit.some((row) => row.action === "write" && row.detail?.includes("after a restart"))).toBe(true);
});
