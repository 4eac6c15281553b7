/**
 * Undo gives back every field it planned, byte for byte, dates included (issue 33; API.md "Undo and Apply are
 * exact"), on the real plugin: a post in a random starting state (a floating draft whose `post_date_gmt` is
 * 0000-00-00 00:00:00, a dated draft, published, pending) × a random change of the post fields an operation can write
 * (title, content, excerpt, slug, menu order, parent, featured image, categories, tags, scheduling with a date,
 * publishing, a new date), written as the agent writes and undone as Undo does: the post's database row (both dates
 * included) and its terms and featured image read back exactly as before. And the named case: scheduling a draft for
 * Monday 09:00, then Undo through the route, gives back both of the draft's dates. And the write itself leaves a
 * floating draft's date as it was (the plugin keeps it; WordPress would date the draft "now" on any save).
 */
import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { useTestDatabase } from "@/lib/db/testing";
import { newUser } from "@/test/accounts";
import { type AgentTestSite, insertSiteRow, startAgentSite } from "@/test/agent-site";
import { addLibraryFile, solidJpeg } from "@/test/media-library";
import { runAsAdmin } from "@/test/wordpress";
import { undoChangeSetForOwner, setChangeDepsForTests } from "@/lib/workflows/change-set-actions";
import { recordWritten } from "./change-sets";
import { planPostUpdate, reverseChange } from "./plan";
import { readItem, writeItems } from "@/lib/sites/items";

vi.setConfig({ testTimeout: 900_000 });
useTestDatabase();

let wp: AgentTestSite;
let attachment: number;
let parentPage: number;

const php = <T>(body: string, args: unknown = null) => runAsAdmin<T>(wp.local.wpPath, body, args);

beforeAll(async () => {
  wp = await startAgentSite();
  setChangeDepsForTests({ siteClient: () => wp.admin });
  attachment = await addLibraryFile(wp.local.wpPath, {
    name: "loaf.jpg",
    bytes: await solidJpeg(300, 200, "#a0522d"),
    mime: "image/jpeg",
    title: "Loaf",
  });
  parentPage = await php<number>(
    "wp_insert_term('News', 'category', array('slug' => 'news')); wp_insert_term('Bakery', 'post_tag', array('slug' => 'bakery')); wp_insert_term('Bread', 'post_tag', array('slug' => 'bread')); echo (int) wp_insert_post(array('post_type' => 'post', 'post_status' => 'publish', 'post_title' => 'Parent'));",
  );
}, 180_000);

afterAll(async () => {
  setChangeDepsForTests(undefined);
  await wp?.local.stop();
});

/** The post as the database holds it, with its terms and featured image: what "byte for byte" compares. */
const row = (id: number) =>
  php<Record<string, unknown>>(
    "clean_post_cache((int) $args); $p = get_post((int) $args, ARRAY_A); $keep = array('post_title', 'post_content', 'post_excerpt', 'post_status', 'post_name', 'post_parent', 'menu_order', 'post_date', 'post_date_gmt'); $out = array_intersect_key($p, array_flip($keep)); $out['categories'] = wp_get_post_terms((int) $args, 'category', array('fields' => 'slugs')); $out['tags'] = wp_get_post_terms((int) $args, 'post_tag', array('fields' => 'slugs')); $out['thumbnail'] = get_post_meta((int) $args, '_thumbnail_id', true); echo json_encode($out);",
    id,
  );

const STARTS = ["floating draft", "dated draft", "publish", "pending"] as const;
type Start = (typeof STARTS)[number];

/** A post in the given state, created as WordPress's editor would (a floating draft keeps post_date_gmt zero). */
const makePost = (start: Start, title: string) =>
  php<number>(
    "$start = $args[0]; $data = array('post_type' => 'post', 'post_title' => $args[1], 'post_content' => '<!-- wp:paragraph --><p>Fresh bread</p><!-- /wp:paragraph -->', 'post_excerpt' => 'Short', 'post_status' => 'publish' === $start ? 'publish' : ('pending' === $start ? 'pending' : 'draft')); if ('dated draft' === $start) { $data['post_date'] = '2025-03-04 10:11:12'; $data['post_date_gmt'] = '2025-03-04 09:11:12'; $data['edit_date'] = true; } $id = wp_insert_post($data); if ('floating draft' === $start) { $GLOBALS['wpdb']->update($GLOBALS['wpdb']->posts, array('post_date' => '2025-01-02 03:04:05', 'post_date_gmt' => '0000-00-00 00:00:00'), array('ID' => $id)); clean_post_cache($id); } echo (int) $id;",
    [start, title],
  );

const future = () => {
  const at = new Date(Date.now() + 9 * 86_400_000);
  return `${at.toISOString().slice(0, 10)} 08:00:00`;
};

/** A change of some of the post fields operations write. */
const change = fc.record(
  {
    title: fc.constantFrom("Rye and spelt", "Our new loaf", "Opening hours"),
    content: fc.constantFrom("<!-- wp:paragraph --><p>Sourdough daily</p><!-- /wp:paragraph -->", ""),
    excerpt: fc.constantFrom("Longer summary", ""),
    slug: fc.constantFrom("rye-spelt", "opening"),
    menu_order: fc.integer({ min: 1, max: 9 }),
    parent: fc.constant("parent"),
    featured_media: fc.constant("attachment"),
    // An empty list is not a change WordPress keeps (it files the post under the default category).
    categories: fc.constantFrom(["news"], ["news", "uncategorized"]),
    tags: fc.constantFrom(["bakery", "bread"], ["bread"]),
    when: fc.constantFrom("schedule", "publish", "redate"),
  },
  { requiredKeys: [] },
);

/** The planned fields; a slug is made unique per post (WordPress would make it so, and the plugin refuse that). */
function fieldsOf(picked: Record<string, unknown>, id: number): Record<string, unknown> {
  const { when, parent, featured_media, slug, ...rest } = picked;
  const fields: Record<string, unknown> = { ...rest };
  if (slug) fields.slug = `${String(slug)}-${id}`;
  if (parent) fields.parent = parentPage;
  if (featured_media) fields.featured_media = attachment;
  if (when === "schedule") Object.assign(fields, { status: "future", date: future() });
  if (when === "publish") fields.status = "publish";
  if (when === "redate") fields.date = "2024-06-07 08:09:10";
  return fields;
}

describe("undo gives back every field it planned", () => {
  it("for any starting post and any change of the fields operations write, byte for byte with both dates", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...STARTS), change, async (start, picked) => {
        fc.pre(Object.keys(picked).length > 0);
        const id = await makePost(start, `Property ${randomUUID().slice(0, 8)}`);
        const fields = fieldsOf(picked, id);
        const before = await row(id);
        const current = await readItem(wp.admin, `post:${id}`);
        const planned = planPostUpdate(current, fields, "A change.");
        fc.pre(Object.keys(planned.change.fields ?? {}).length > 0);
        const [written] = await writeItems(wp.admin, [planned.change]);
        const reverse = reverseChange({
          ref: planned.ref,
          action: "update",
          beforeState: planned.beforeState,
          afterState: written!.after,
          versionAfter: written!.version,
        });
        await writeItems(wp.admin, [reverse]);
        expect(await row(id)).toEqual(before);
        expect((await readItem(wp.admin, `post:${id}`)).version).toBe(current.version);
      }),
      { numRuns: 8, seed: 33, endOnFailure: true },
    );
  });

  it("gives a floating draft its own date back when the write left that date as it was (made in the same second)", async () => {
    const id = await makePost("floating draft", `Same second ${randomUUID().slice(0, 8)}`);
    const before = await row(id);
    const current = await readItem(wp.admin, `post:${id}`);
    const planned = planPostUpdate(
      current,
      { content: "<!-- wp:paragraph --><p>Sourdough daily</p><!-- /wp:paragraph -->" },
      "A change.",
    );
    const [written] = await writeItems(wp.admin, [planned.change]);
    // WordPress dated the draft "now" on that save; had the save fallen in the second of the one before, the write's
    // after-state would show the date unchanged, as here. Undo's own save would then date it again, to its second.
    const reverse = reverseChange({
      ref: planned.ref,
      action: "update",
      beforeState: planned.beforeState,
      afterState: { ...written!.after, date_local: planned.beforeState!.date_local },
      versionAfter: written!.version,
    });
    expect(reverse.fields).toHaveProperty("date_local", before.post_date);
    await writeItems(wp.admin, [reverse]);
    expect(await row(id)).toEqual(before);
  });

  it("has nothing to give back for a floating draft's date: the approved edit itself leaves it as it was", async () => {
    // WordPress dates a floating draft "now" on every save; the plugin keeps its date on a write that leaves it a
    // floating draft and plans no date, so the row differs from before only in what the card showed.
    const id = await makePost("floating draft", `Only the title ${randomUUID().slice(0, 8)}`);
    const before = await row(id);
    const planned = planPostUpdate(await readItem(wp.admin, `post:${id}`), { title: "Rye and spelt" }, "A change.");
    const [written] = await writeItems(wp.admin, [planned.change]);
    expect(await row(id)).toEqual({ ...before, post_title: "Rye and spelt" });
    expect(written!.after?.date_local).toBe(before.post_date);
  });

  it("gives a scheduled draft back both of its dates when the schedule is undone from the Changes page", async () => {
    const userId = (await newUser("dates")).id;
    const siteId = await insertSiteRow({
      userId,
      url: wp.local.url,
      token: wp.token,
      secret: wp.secret,
      info: wp.info,
    });
    const id = await makePost("floating draft", "Monday's special");
    const before = await row(id);
    expect(before).toMatchObject({ post_date_gmt: "0000-00-00 00:00:00", post_date: "2025-01-02 03:04:05" });
    const current = await readItem(wp.admin, `post:${id}`);
    const planned = planPostUpdate(current, { status: "future", date: future() }, "Scheduled for Monday 09:00.");
    const written = await writeItems(wp.admin, [planned.change]);
    const scope = { userId, siteId, conversationId: randomUUID(), turnId: randomUUID(), target: "live" as const };
    const { changeSetId } = await recordWritten(scope, "call-1", [planned], written);
    expect((await row(id)).post_status).toBe("future");

    const undone = await undoChangeSetForOwner({ userId, siteId, changeSetId });
    expect(undone.status).toBe("undone");
    expect(await row(id)).toEqual(before);
  });
});
