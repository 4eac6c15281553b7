/**
 * Bulk jobs against the real WordPress with our plugin, on both stores: the selection is counted before anything
 * runs; the runner plans every item into one change set (drafts written at once, published pages waiting); the owner
 * edits one proposed value, rejects two and approves the rest, and an item a person changed in between is skipped and
 * named; one undo puts back every approved item except the one a person changed since; a job a crashed runner left
 * is taken over and finished without writing any item twice; cancel stops it. A media `write` job shows the model
 * (the real provider path against a scripted Chat Completions server) each item's picture when AGENT_VISION is on.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { readItem } from "@/lib/sites/items";
import { humanEditPost } from "@/test/changes";
import { findJobByChangeSet, getChangeSetItems } from "@/lib/db/queries";
import { getDb } from "@/lib/db";
import { jobs } from "@/lib/db/schema";
import { STORES, useStore } from "@/lib/db/testing";
import { newUser } from "@/test/accounts";
import { type AgentTestSite, insertSiteRow, startAgentSite } from "@/test/agent-site";
import { writeJobTexts } from "@/lib/agent/job-writer";
import { resetEnvForTests } from "@/lib/env";
import { addLibraryFile, solidJpeg } from "@/test/media-library";
import { type OpenAIChatRequest, startOpenAIScriptedServer } from "@/test/openai-scripted-server";
import { runAsAdmin } from "@/test/wordpress";
import sharp from "sharp";
import { eq } from "drizzle-orm";
import type { JobSpec } from "@/lib/jobs/spec";
import {
  applyChangeSetForOwner,
  editQueueItemForOwner,
  rejectQueueItemsForOwner,
  setChangeDepsForTests,
  undoChangeSetForOwner,
} from "./change-set-actions";
import { cancelJobForOwner, kickJobRunner, setJobDepsForTests, showJobForOwner, startBulkJob } from "./bulk-job";

// Each test writes dozens of items to the real site, several times over, and asks it where visitors would see each
// batch: many minutes on a loaded two-core machine (figures: docs/performance.md).
vi.setConfig({ testTimeout: 600_000 });

let wp: AgentTestSite;

beforeAll(async () => {
  wp = await startAgentSite();
  const client = () => wp.clientFor(wp.local.url);
  setChangeDepsForTests({ siteClient: client });
  setJobDepsForTests({ siteClient: client, writeTexts: fakeWriter });
});

/** The scripted writer most tests use: a text per item from its title, 40 tokens each. */
const fakeWriter: typeof writeJobTexts = async ({ items }) => ({
  texts: new Map(items.map((item) => [item.id, `A photo titled ${String(item.title)}`])),
  tokens: 40 * items.length,
});

/** Every picture the model was sent, with the item it was labelled as ("The image of item <id>:" before it). */
function picturesIn(request: OpenAIChatRequest): Array<{ id: number; url: string }> {
  const parts = request.messages.flatMap((message) =>
    message.role === "user" && Array.isArray(message.content)
      ? (message.content as Array<{ type: string; text?: string; image_url?: { url: string } }>)
      : [],
  );
  return parts.flatMap((part, index) => {
    if (part.type !== "image_url") return [];
    const label = /The image of item (\d+):/.exec(parts[index - 1]?.text ?? "");
    return [{ id: Number(label?.[1]), url: part.image_url!.url }];
  });
}

/** The scripted model's answer to a batch: a text for each item listed, saying whether any picture came with it. */
function describeEachItem(request: OpenAIChatRequest) {
  const user = request.messages.find((message) => message.role === "user")!;
  const text = Array.isArray(user.content)
    ? (user.content as Array<{ type: string; text?: string }>)[0]!.text!
    : String(user.content);
  const items = JSON.parse(text.slice(text.indexOf("["))) as Array<{ id: number }>;
  const seen = picturesIn(request).length > 0 ? "Seen" : "Unseen";
  return {
    text: JSON.stringify({ items: items.map((item) => ({ id: item.id, text: `${seen} item ${item.id}` })) }),
  };
}
afterAll(async () => {
  setChangeDepsForTests(undefined);
  setJobDepsForTests(undefined);
  await wp?.local.stop();
});

const php = <T>(body: string, args: unknown = null) => runAsAdmin<T>(wp.local.wpPath, body, args);

/** `count` pages with the old phone number, `status` each; returns their ids. */
const pages = (count: number, status: string, tag: string) =>
  php<number[]>(
    `$ids = array(); for ($i = 1; $i <= (int) $args[0]; $i++) { $ids[] = wp_insert_post(array('post_type' => 'page', 'post_status' => $args[1], 'post_title' => $args[2] . ' ' . $i, 'post_content' => '<!-- wp:paragraph --><p>Call us on 555-0100 (' . $args[2] . ').</p><!-- /wp:paragraph -->')); } echo json_encode($ids);`,
    [count, status, tag],
  );

const content = (id: number) => php<string>("echo json_encode(get_post((int) $args)->post_content);", id);

async function startAndRun(userId: string, siteId: string, spec: JobSpec) {
  const job = await startBulkJob({ userId, siteId, conversationId: crypto.randomUUID(), spec, client: wp.admin });
  await kickJobRunner();
  return showJobForOwner({ userId, siteId, jobId: job.id });
}

describe.each(STORES)("bulk jobs (%s)", (store) => {
  useStore(store);
  let userId: string;
  let siteId: string;
  const request = (changeSetId: string, itemIds?: string[]) => ({ userId, siteId, changeSetId, itemIds });

  beforeAll(async () => {
    userId = (await newUser("jobs")).id;
    siteId = await insertSiteRow({ userId, url: wp.local.url, token: wp.token, secret: wp.secret, info: wp.info });
  });

  it("plans one queue, skips a person's edit on approve, takes edits and rejections, and undoes as one", async () => {
    const tag = `replace-${store.length}`;
    const published = await pages(12, "publish", tag);
    const drafts = await pages(3, "draft", tag);
    const spec: JobSpec = {
      description: "pages with the old phone number",
      selection: { type: "page", search: tag, status: "any" },
      change: { kind: "replace", field: "content", find: "555-0100", replace: "555-0199" },
    };
    const job = await startAndRun(userId, siteId, spec);
    expect(job).toMatchObject({ status: "ready", selection: { count: 15 } });
    expect(job.progress).toMatchObject({ planned: 12, applied: 3, skipped: 0 });
    // Leaving planning records how long it took: the job's time budget, shown beside BULK_JOB_MAX_MINUTES.
    expect(job.progress.planningMs).toBeGreaterThan(0);
    expect(job.progress.planningMs).toBeLessThan(job.limits.maxMinutes * 60_000);
    for (const id of drafts) expect(await content(id)).toContain("555-0199"); // invisible: written at once
    for (const id of published) expect(await content(id)).toContain("555-0100"); // visible: waits

    const items = await getChangeSetItems(job.changeSetId);
    const pending = items.filter((i) => i.status === "pending");
    expect(pending).toHaveLength(12);
    const byPage = (id: number) => pending.find((i) => i.ref === `post:${id}`)!;

    // The owner words one item themselves, rejects two; a person edits another page in wp-admin meanwhile.
    const edited = byPage(published[0]!);
    const ownWords = (edited.change.fields!.content as string).replace("555-0199", "555-0199 (new number!)");
    await editQueueItemForOwner({ ...request(job.changeSetId), itemId: edited.id, after: { content: ownWords } });
    await rejectQueueItemsForOwner(request(job.changeSetId, [byPage(published[1]!).id, byPage(published[2]!).id]));
    await humanEditPost(wp.local.wpPath, published[3]!, { content: "<p>Call Ana on 555-0100.</p>" });

    const applied = await applyChangeSetForOwner(request(job.changeSetId));
    expect(applied.skipped).toEqual([
      expect.objectContaining({
        id: byPage(published[3]!).id,
        reason: expect.stringContaining("changed it on the site"),
      }),
    ]);
    expect(await content(published[0]!)).toContain("555-0199 (new number!)");
    expect(await content(published[1]!)).toContain("555-0100");
    expect(await content(published[3]!)).toBe("<p>Call Ana on 555-0100.</p>");
    for (const id of published.slice(4)) expect(await content(id)).toContain("555-0199");
    expect(await showJobForOwner({ userId, siteId, jobId: job.id })).toMatchObject({
      status: "done",
      progress: { applied: 3 + 9, skipped: 1 },
    });
    // Once written, an item cannot be reworded.
    await expect(
      editQueueItemForOwner({ ...request(job.changeSetId), itemId: edited.id, after: { content: "x" } }),
    ).rejects.toMatchObject({ code: "not_applicable" });

    // Undo as one, newest first; the page a person edited after the job is skipped and named, theirs kept.
    const before = await readItem(wp.admin, `post:${published[5]!}`);
    await humanEditPost(wp.local.wpPath, published[5]!, { content: "<p>Ana changed this after the job.</p>" });
    const undone = await undoChangeSetForOwner(request(job.changeSetId));
    expect(undone.skipped?.map((s) => s.id)).toEqual([byPage(published[5]!).id]);
    expect(await content(published[5]!)).toBe("<p>Ana changed this after the job.</p>");
    expect(before.state?.content).toContain("555-0199");
    for (const id of [published[0]!, ...published.slice(4).filter((id) => id !== published[5])])
      expect(await content(id)).toContain("555-0100");
    for (const id of drafts) expect(await content(id)).toContain("555-0100");
  });

  it("writes model text per item in batches, counting the job's tokens apart from the chat's", async () => {
    const ids = await php<number[]>(
      "$draft = wp_insert_post(array('post_type' => 'post', 'post_status' => 'draft', 'post_title' => 'Shop notes')); $ids = array(); for ($i = 1; $i <= 12; $i++) { $ids[] = wp_insert_attachment(array('post_title' => 'Shop photo ' . $i, 'post_mime_type' => 'image/jpeg', 'post_status' => 'inherit'), false, $draft); } echo json_encode($ids);",
    );
    const job = await startAndRun(userId, siteId, {
      description: "images without alt text",
      selection: { type: "media", status: "any", missing: "alt" },
      change: { kind: "write", field: "alt", instruction: "Describe what each photo shows." },
    });
    expect(job.selection.count).toBeGreaterThanOrEqual(12);
    expect(job.progress.tokens).toBe(40 * job.selection.count);
    // Attached to a draft and shown by no published page: their alt text is invisible, so it is written at once.
    expect(job.progress.applied).toBe(job.selection.count);
    expect(
      await php<string>("echo json_encode(get_post_meta((int) $args, '_wp_attachment_image_alt', true));", ids[0]),
    ).toBe("A photo titled Shop photo 1");
  });

  it("shows the model each picture of a media write job when it can see images, and none when it cannot", async () => {
    const tag = `seen${store.length}x${Date.now()}`;
    const photos: number[] = [];
    for (const [i, colour] of ["#c03050", "#3050c0", "#30c050"].entries())
      photos.push(
        await addLibraryFile(wp.local.wpPath, {
          name: `${tag}-${i}.jpg`,
          bytes: await solidJpeg(1200, 800, colour),
          mime: "image/jpeg",
          title: `${tag} photo ${i}`,
        }),
      );
    // A "photo" whose file is not a picture: written from its facts, shown to the model as nothing.
    const fake = await addLibraryFile(wp.local.wpPath, {
      name: `${tag}-fake.jpg`,
      bytes: Buffer.from("<html>not a picture</html>"),
      mime: "image/jpeg",
      title: `${tag} photo fake`,
      sizes: false,
    });
    // Attached to a draft (no public attachment page), so their texts are written at once, as the job plans them.
    await php(
      "$draft = wp_insert_post(array('post_type' => 'post', 'post_status' => 'draft', 'post_title' => 'Photo notes')); foreach ($args as $id) { wp_update_post(array('ID' => (int) $id, 'post_parent' => $draft)); } echo 1;",
      [...photos, fake],
    );
    const model = await startOpenAIScriptedServer([describeEachItem], { apiKey: "sk-test-jobs" });
    const writeJob = (field: "alt" | "caption") =>
      startAndRun(userId, siteId, {
        description: `images to describe (${field})`,
        selection: { type: "media", search: tag, status: "any" },
        change: { kind: "write", field, instruction: "Describe what each photo shows." },
      });
    setJobDepsForTests({ siteClient: () => wp.clientFor(wp.local.url), writeTexts: writeJobTexts });
    try {
      for (const [vision, field] of [
        [true, "alt"],
        [true, "caption"],
        [false, "caption"],
      ] as const) {
        resetEnvForTests({
          OPENAI_API_KEY: "sk-test-jobs",
          OPENAI_BASE_URL: model.baseURL,
          AGENT_MODEL: "scripted-model",
          AGENT_VISION: vision ? "true" : "false",
        });
        model.requests.length = 0;
        const job = await writeJob(field);
        expect(job).toMatchObject({ status: "done", selection: { count: 4 } });
        expect(model.requests).toHaveLength(1); // one batch of four
        const request = model.requests[0]!.body;
        const pictures = picturesIn(request);
        if (vision) {
          // Each real photo, after its id, as a small JPEG (the batch's 384 px, not the 1200 px original).
          expect(pictures.map((p) => p.id).sort()).toEqual([...photos].sort());
          for (const picture of pictures) {
            const meta = await sharp(Buffer.from(picture.url.split(",")[1]!, "base64")).metadata();
            expect([meta.format, meta.width, meta.height]).toEqual(["jpeg", 384, 256]);
          }
        } else expect(pictures).toEqual([]);
        const key = field === "alt" ? "_wp_attachment_image_alt" : "";
        for (const id of [...photos, fake]) {
          const written = await php<string>(
            key
              ? "echo json_encode(get_post_meta((int) $args[0], $args[1], true));"
              : "echo json_encode(get_post((int) $args[0])->post_excerpt);",
            [id, key],
          );
          expect(written).toBe(`${vision ? "Seen" : "Unseen"} item ${id}`);
        }
      }
    } finally {
      setJobDepsForTests({ siteClient: () => wp.clientFor(wp.local.url), writeTexts: fakeWriter });
      resetEnvForTests({
        OPENAI_API_KEY: "",
        OPENAI_BASE_URL: undefined,
        AGENT_MODEL: undefined,
        AGENT_VISION: undefined,
      });
      await model.close();
    }
  });

  it("takes over a job a crashed runner left half planned, without planning or writing an item twice", async () => {
    const tag = `resume-${store.length}`;
    const drafts = await pages(30, "draft", tag);
    const job = await startBulkJob({
      userId,
      siteId,
      conversationId: crypto.randomUUID(),
      spec: {
        description: "drafts with the old number",
        selection: { type: "page", search: tag, status: "draft" },
        change: { kind: "replace", field: "content", find: "555-0100", replace: "555-0142" },
      },
      client: wp.admin,
    });
    await kickJobRunner(); // finishes; now make it look as if a runner had died after the first batch
    const db = await getDb();
    const items = await getChangeSetItems(job.changeSetId);
    expect(items).toHaveLength(30);
    const revisions = () => php<number>("echo json_encode(count(wp_get_post_revisions((int) $args)));", drafts.at(-1));
    const revisionsBefore = await revisions();
    await db
      .update(jobs)
      .set({
        status: "planning",
        cursor: 25,
        leaseOwner: "a-runner-that-died",
        leaseUntil: new Date(Date.now() - 1000),
      })
      .where(eq(jobs.id, job.id));
    await kickJobRunner();
    const resumed = await showJobForOwner({ userId, siteId, jobId: job.id });
    expect(resumed.status).toBe("done");
    expect(await getChangeSetItems(job.changeSetId)).toHaveLength(30); // the last batch was not planned again
    expect(await revisions()).toBe(revisionsBefore); // nor written again
    expect(await findJobByChangeSet(job.changeSetId)).toMatchObject({ leaseOwner: null });
  });

  it("refuses an empty or oversized selection before anything runs, and cancels a job with its waiting items", async () => {
    await expect(
      startBulkJob({
        userId,
        siteId,
        conversationId: crypto.randomUUID(),
        spec: {
          description: "pages about unicorns",
          selection: { type: "page", search: "no-such-words-anywhere", status: "any" },
          change: { kind: "set", field: "excerpt", template: "{title}" },
        },
        client: wp.admin,
      }),
    ).rejects.toThrow(/Nothing matches/);
    const tag = `cancel-${store.length}`;
    await pages(3, "publish", tag);
    const job = await startAndRun(userId, siteId, {
      description: "pages to summarise",
      selection: { type: "page", search: tag, status: "publish" },
      change: { kind: "set", field: "excerpt", template: "About {title}" },
    });
    expect(job.status).toBe("ready");
    const cancelled = await cancelJobForOwner({ userId, siteId, jobId: job.id });
    expect(cancelled.status).toBe("cancelled");
    expect((await getChangeSetItems(job.changeSetId)).every((i) => i.status === "denied")).toBe(true);
    await expect(cancelJobForOwner({ userId, siteId, jobId: job.id })).rejects.toMatchObject({
      code: "not_applicable",
    });
    const other = await newUser("other");
    await expect(showJobForOwner({ userId: other.id, siteId, jobId: job.id })).rejects.toMatchObject({
      code: "not_found",
    });
  });
});
