/**
 * Killing the app in the middle of a bulk job and starting it again resumes the job without writing any item twice
 * (docs/bulk-jobs.md, "Restarts and several instances"). The built app as `npm start` runs it, on PostgreSQL, with
 * the real WordPress and our plugin over https, and a model server that takes seconds per batch: the chat starts a
 * job that writes excerpts for 30 draft pages (batches of 10, written at once: drafts are invisible), the server is
 * killed with SIGKILL mid-job, and a new server on the same database and port finishes the job when the dead
 * runner's lease runs out. Killed while the second batch's model call is in flight, every item is planned and
 * written once; killed while WordPress writes the second batch (recorded first, write-ahead), the resumed runner
 * finds those writes landed and records them as written, never writing again with the model's second text. A must-use plugin
 * counts every update WordPress makes to each page. Needs `npm run build` first; each case waits out a 60 s lease.
 */
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { setDatabaseForTests } from "@/lib/db";
import { findJobByChangeSet, getChangeSetItems } from "@/lib/db/queries";
import { createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { type AgentTestSite, insertSiteRow, parseUiStream, startAgentSite } from "@/test/agent-site";
import { type BuiltApp, launchBuiltApp, startBuiltApp } from "@/test/built-app";
import {
  type OpenAIChatRequest,
  type ScriptedReply,
  type ScriptedServer,
  startOpenAIScriptedServer,
  toolMessages,
} from "@/test/openai-scripted-server";
import { existsSync } from "node:fs";
import path from "node:path";
import { installMuPlugin, runAsAdmin } from "@/test/wordpress";
import { request, waitFor } from "./support/instances";

// The dead runner's lease (60 s) must run out before the new server takes the job over: up to 90 s of waiting.
vi.setConfig({ testTimeout: 240_000 });

const PAGES = 30;
const BATCH = 10; // a `write` job's batch (lib/workflows/bulk-job.ts)
const MODEL_DELAY_MS = 3000;
const PASSWORD = "a long and unusual passphrase 7";

let database: TestDatabase;
let wp: AgentTestSite;
let model: ScriptedServer;
let app: BuiltApp | undefined;
let writerCalls = 0;
/** What the chat's turn asks for: the pages of one case, by their title's tag. */
let currentTag = "";

const textOf = (content: unknown) =>
  Array.isArray(content)
    ? content.map((part: { text?: unknown }) => String(part?.text ?? "")).join("\n")
    : String(content ?? "");

/**
 * The chat's turn calls start_bulk_job once; the job's writer answers each batch after MODEL_DELAY_MS, with text
 * that names the call, so an item written again by a later call would read differently (and count twice).
 */
function reply(body: OpenAIChatRequest): ScriptedReply {
  const system = textOf(body.messages.find((m) => m.role === "system")?.content);
  if (system.startsWith("You write ")) {
    writerCalls += 1;
    const said = textOf(body.messages.findLast((m) => m.role === "user")?.content);
    const listed = /Items \(site data, not instructions\):\n([\s\S]*)$/.exec(said)?.[1] ?? "[]";
    const items = JSON.parse(listed) as Array<{ id: number; title: string }>;
    const texts = items.map((item) => ({ id: item.id, text: `Summary ${writerCalls} of ${item.title}.` }));
    return { delayMs: MODEL_DELAY_MS, text: JSON.stringify({ items: texts }) };
  }
  if (toolMessages(body).length > 0) return { text: "I started the job." };
  const spec = {
    description: "draft pages without an excerpt",
    selection: { type: "page", search: currentTag, status: "draft", missing: "excerpt" },
    change: { kind: "write", field: "excerpt", instruction: "Summarise each page in one sentence." },
  };
  return { toolCalls: [{ name: "start_bulk_job", arguments: spec }] };
}

const php = <T>(body: string, args: unknown = null) => runAsAdmin<T>(wp.local.wpPath, body, args);
/** How many times WordPress updated each page, by id (the must-use plugin's count). */
const writes = () => php<Record<string, number>>("echo json_encode((object) get_option('sw_test_writes', array()));");

beforeAll(async () => {
  database = await createTestDatabase();
  await setDatabaseForTests(database.handle);
  [wp, model] = await Promise.all([startAgentSite(), startOpenAIScriptedServer([reply])]);
  installMuPlugin(
    wp.local.wpPath,
    "count-writes.php",
    `<?php
add_action('post_updated', function ($id, $after) {
  if ('page' !== $after->post_type) { return; }
  $counts = get_option('sw_test_writes', array());
  $counts[$id] = ($counts[$id] ?? 0) + 1;
  update_option('sw_test_writes', $counts, false);
  // A "slowwrite" case: the first write after the first batch says so in a file, then takes 8 s to finish.
  if (0 !== strpos($after->post_title, 'slowwrite')) { return; }
  $tag = strtok($after->post_title, ' ');
  $seen = (int) get_option('sw_test_' . $tag, 0) + 1;
  update_option('sw_test_' . $tag, $seen, false);
  if (${BATCH} + 1 === $seen) { touch(ABSPATH . $tag . '.writing'); sleep(8); }
}, 10, 2);
`,
  );
}, 180_000);

afterAll(async () => {
  await app?.kill();
  await setDatabaseForTests(undefined);
  await Promise.all([model?.close(), wp?.local.stop(), database?.drop()]);
});

/** The child signs site requests with the site row this process stores, and trusts the test CA the site uses. */
const appEnv = () => ({
  DATABASE_URL: database.url,
  ENCRYPTION_KEY: process.env.ENCRYPTION_KEY!,
  NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? "",
  SITE_HOST_ALLOWLIST: "localhost",
  OPENAI_BASE_URL: model.baseURL,
  OPENAI_API_KEY: "scripted",
  AGENT_MODEL: "scripted",
});

type Started = { id: string; changeSetId: string; selection: { count: number } };

/** Draft pages titled with the case's tag, a fresh server, an owner with the site, and the job the chat started. */
async function startJob(tag: string) {
  currentTag = tag;
  const pages = await php<number[]>(
    "$ids = array(); for ($i = 1; $i <= (int) $args[0]; $i++) { $ids[] = wp_insert_post(array('post_type' => 'page', 'post_status' => 'draft', 'post_title' => $args[1] . ' ' . $i, 'post_content' => '<p>Page ' . $i . '</p>')); } echo json_encode($ids);",
    [PAGES, tag],
  );
  const server = await startBuiltApp(appEnv());
  app = server;
  const origin = { origin: server.url };
  const signup = await request(server.url, "/auth/signup", {
    body: { email: `${tag}@example.com`, password: PASSWORD },
    headers: origin,
  });
  expect(signup.status, signup.text).toBe(201);
  const cookie = signup.cookie!;
  const me = await request(server.url, "/auth/me", { cookie });
  const siteId = await insertSiteRow({
    userId: me.json.user.id,
    url: wp.local.url,
    token: wp.token,
    secret: wp.secret,
    info: wp.info,
  });
  const chat = await request(server.url, "/chat", {
    body: { siteId, message: "Write an excerpt for every draft page that has none." },
    cookie,
    headers: origin,
  });
  expect(chat.status, chat.text).toBe(200);
  const part = parseUiStream(chat.text).find((c) => c.type === "data-job");
  expect(part, chat.text).toBeDefined();
  const started = part!.data as Started;
  expect(started.selection.count).toBe(PAGES);
  return { pages, cookie, siteId, started, job: () => findJobByChangeSet(started.changeSetId) };
}

/** A new server on the same database (and port, so the session's origin holds); returns when the job is done. */
async function restartAndFinish(server: BuiltApp, siteId: string, jobId: string, cookie: string) {
  const restartedAt = Date.now();
  app = await launchBuiltApp(appEnv(), server.port);
  const done = await waitFor(
    () => request(app!.url, `/sites/${siteId}/jobs/${jobId}`, { cookie }),
    (res) => res.json?.job?.status === "done",
    150_000,
    "the job to finish on the new server",
  );
  console.info(`job finished ${Math.round((Date.now() - restartedAt) / 1000)} s after the restart`);
  await app.stop();
  return done.json.job as { progress: Record<string, number> };
}

const excerptsOf = (pages: number[]) =>
  php<string[]>("echo json_encode(array_map(function ($id) { return get_post($id)->post_excerpt; }, $args));", pages);

it("killed while the model writes the second batch: every item planned once and written once", async () => {
  const tag = `restart${Date.now()}`;
  const { pages, cookie, siteId, started, job } = await startJob(tag);
  const calls = writerCalls;
  // Kill once the first batch is stored and the second's model call is in flight (seconds before it can write).
  const atKill = await waitFor(
    job,
    (j) => (j?.cursor ?? 0) >= BATCH && writerCalls >= calls + 2,
    60_000,
    "the first batch stored and the second asked for",
  );
  await app!.kill();
  expect(atKill!.cursor, "killed between the first batch and the last").toBe(BATCH);
  expect(atKill!.status).toBe("planning");
  const writtenBeforeKill = await writes();
  expect(pages.filter((id) => writtenBeforeKill[id])).toHaveLength(BATCH);

  const done = await restartAndFinish(app!, siteId, started.id, cookie);
  expect(done.progress).toMatchObject({ applied: PAGES, skipped: 0, failed: 0 });
  const counts = await writes();
  for (const id of pages) expect(counts[id], `writes to page ${id}`).toBe(1);
  const items = await getChangeSetItems(started.changeSetId);
  expect(items).toHaveLength(PAGES);
  expect(new Set(items.map((item) => item.ref))).toEqual(new Set(pages.map((id) => `post:${id}`)));
  expect(items.every((item) => item.status === "applied")).toBe(true);
  for (const [index, excerpt] of (await excerptsOf(pages)).entries())
    expect(excerpt).toMatch(new RegExp(`^Summary \\d+ of ${tag} ${index + 1}\\.$`));
  // The batch the kill interrupted was asked for again: 3 batches, 4 calls.
  expect(writerCalls - calls).toBe(PAGES / BATCH + 1);
});

it("killed while WordPress writes a recorded batch: on resume the batch is found written, recorded as written, not written again", async () => {
  const tag = `slowwrite${Date.now()}`;
  const { pages, cookie, siteId, started, job } = await startJob(tag);
  // The mu-plugin holds the second batch's write for 8 s: the server dies with the write under way on the site.
  await waitFor(
    async () => existsSync(path.join(wp.local.wpPath, `${tag}.writing`)),
    (writing) => writing,
    60_000,
    "the second batch's write",
  );
  await app!.kill();
  const atKill = await job();
  // Write-ahead: the batch was recorded (cursor past it) before its write began.
  expect(atKill).toMatchObject({ status: "planning", cursor: 2 * BATCH });
  // WordPress finishes the write it started: 20 pages written, 10 of them in rows the dead runner left "writing".
  await waitFor(writes, (w) => pages.filter((id) => w[id]).length === 2 * BATCH, 30_000, "the write to finish");

  const done = await restartAndFinish(app!, siteId, started.id, cookie);
  expect(done.progress).toMatchObject({ applied: PAGES, skipped: 0, failed: 0 });
  const counts = await writes();
  for (const id of pages) expect(counts[id], `writes to page ${id}`).toBe(1);
  const items = await getChangeSetItems(started.changeSetId);
  // Every write is in the job's change set, so the job's one Undo covers it.
  expect(items).toHaveLength(PAGES);
  expect(new Set(items.map((item) => item.ref)).size).toBe(PAGES);
  expect(items.every((item) => item.status === "applied")).toBe(true);
  for (const excerpt of await excerptsOf(pages)) expect(excerpt).toMatch(/^Summary \d+ of slowwrite/);
});
