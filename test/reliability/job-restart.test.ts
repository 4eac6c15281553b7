/**
 * Killing the app in the middle of a bulk job and starting it again resumes the job without writing any item twice
 * (docs/bulk-jobs.md, "Restarts and several instances"). The built app as `npm start` runs it, on PostgreSQL, with
 * the real WordPress and our plugin over https, and a model server that takes seconds per batch: the chat starts a
 * job that writes excerpts for 30 draft pages (batches of 10, written at once: drafts are invisible); once the first
 * batch is stored the server is killed with SIGKILL while the second batch's model call is in flight; a new server
 * on the same database and port finishes the job when the dead runner's lease runs out. A must-use plugin counts
 * every update WordPress makes to each page, so a second write of any item shows. Needs `npm run build` first.
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
import { installMuPlugin, runAsAdmin } from "@/test/wordpress";
import { request, waitFor } from "./support/instances";

// The dead runner's lease (60 s) must run out before the new server takes the job over: up to 90 s of waiting.
vi.setConfig({ testTimeout: 240_000 });

const PAGES = 30;
const BATCH = 10; // a `write` job's batch (lib/workflows/bulk-job.ts)
const MODEL_DELAY_MS = 3000;
const PASSWORD = "a long and unusual passphrase 7";
const tag = `restart${Date.now()}`;

let database: TestDatabase;
let wp: AgentTestSite;
let model: ScriptedServer;
let app: BuiltApp | undefined;
let writerCalls = 0;

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
    selection: { type: "page", search: tag, status: "draft", missing: "excerpt" },
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

it("resumes a job after kill -9 on a new server, without writing or planning any item twice", async () => {
  const pages = await php<number[]>(
    "$ids = array(); for ($i = 1; $i <= (int) $args[0]; $i++) { $ids[] = wp_insert_post(array('post_type' => 'page', 'post_status' => 'draft', 'post_title' => $args[1] . ' ' . $i, 'post_content' => '<p>Page ' . $i . '</p>')); } echo json_encode($ids);",
    [PAGES, tag],
  );
  app = await startBuiltApp(appEnv());
  const origin = { origin: app.url };
  const signup = await request(app.url, "/auth/signup", {
    body: { email: `${tag}@example.com`, password: PASSWORD },
    headers: origin,
  });
  expect(signup.status, signup.text).toBe(201);
  const cookie = signup.cookie!;
  const me = await request(app.url, "/auth/me", { cookie });
  const siteId = await insertSiteRow({
    userId: me.json.user.id,
    url: wp.local.url,
    token: wp.token,
    secret: wp.secret,
    info: wp.info,
  });

  const chat = await request(app.url, "/chat", {
    body: { siteId, message: "Write an excerpt for every draft page that has none." },
    cookie,
    headers: origin,
  });
  expect(chat.status, chat.text).toBe(200);
  const part = parseUiStream(chat.text).find((c) => c.type === "data-job");
  expect(part, chat.text).toBeDefined();
  const started = part!.data as { id: string; changeSetId: string; selection: { count: number } };
  expect(started.selection.count).toBe(PAGES);

  // Kill once the first batch is stored and the second's model call is in flight (seconds before it can write).
  const job = () => findJobByChangeSet(started.changeSetId);
  const atKill = await waitFor(
    job,
    (j) => (j?.cursor ?? 0) >= BATCH && writerCalls >= 2,
    60_000,
    "the first batch stored and the second asked for",
  );
  await app.kill();
  expect(atKill!.cursor, "killed between the first batch and the last").toBe(BATCH);
  expect(atKill!.status).toBe("planning");
  const writtenBeforeKill = await writes();
  expect(Object.keys(writtenBeforeKill)).toHaveLength(BATCH);

  // A new server on the same database (and port, so the session's origin holds) takes the job over.
  const resumedAt = Date.now();
  app = await launchBuiltApp(appEnv(), app.port);
  const done = await waitFor(
    () => request(app!.url, `/sites/${siteId}/jobs/${started.id}`, { cookie }),
    (res) => res.json?.job?.status === "done",
    150_000,
    "the job to finish on the new server",
  );
  console.info(`job resumed and finished ${Math.round((Date.now() - resumedAt) / 1000)} s after the restart`);
  expect(done.json.job.progress).toMatchObject({ applied: PAGES, skipped: 0, failed: 0 });

  // Every page written exactly once, with one call's text; every item planned once.
  const counts = await writes();
  for (const id of pages) expect(counts[id], `writes to page ${id}`).toBe(1);
  const items = await getChangeSetItems(started.changeSetId);
  expect(items).toHaveLength(PAGES);
  expect(new Set(items.map((item) => item.ref))).toEqual(new Set(pages.map((id) => `post:${id}`)));
  expect(items.every((item) => item.status === "applied")).toBe(true);
  const excerpts = await php<string[]>(
    "echo json_encode(array_map(function ($id) { return get_post($id)->post_excerpt; }, $args));",
    pages,
  );
  for (const [index, excerpt] of excerpts.entries())
    expect(excerpt).toMatch(new RegExp(`^Summary \\d+ of ${tag} ${index + 1}\\.$`));
  // The batch the kill interrupted was asked for again: 3 batches, 4 calls.
  expect(writerCalls).toBe(PAGES / BATCH + 1);
});
