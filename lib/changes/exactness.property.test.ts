/**
 * Write = plan, as a property on the real plugin (SECURITY.md, "What the owner approves is what is written"):
 * random page content an administrator wrote (iframes, forms, scripts, shortcodes, page-builder comments, unknown
 * blocks, classic HTML) × a random one-block edit (replace or insert) written as the agent through the items route:
 * the site stores exactly the plan — every byte outside the edited block as it was — and undo (the recorded
 * before-state, written back) gives the original bytes back.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertBlock, parseBlocks, replaceBlock } from "@/lib/agent/blocks";
import { startAgentSite, type AgentTestSite } from "@/test/agent-site";
import { asStoredMarkup } from "@/lib/wordpress/stored-text";
import { runAsAdmin } from "@/test/wordpress";
import { reverseChange } from "./plan";
import { readItem, writeItems } from "@/lib/sites/items";

let wp: AgentTestSite;

beforeAll(async () => {
  wp = await startAgentSite();
}, 120_000);

afterAll(async () => {
  await wp?.local.stop();
});

const words = fc
  .array(fc.constantFrom("Open", "daily", "from", "9", "to", "5", "Q&A", "café", "“quoted”", "it's", "—", "50%"), {
    minLength: 1,
    maxLength: 6,
  })
  .map((list) => list.join(" "));

/** What an administrator's page may hold (written with unfiltered_html). */
const block = fc.oneof(
  words.map((text) => `<!-- wp:paragraph --><p>${asStoredMarkup(text)}</p><!-- /wp:paragraph -->`),
  fc.constant(
    '<!-- wp:html --><iframe src="https://maps.example.com/embed?pb=1&amp;z=3" width="600" height="450" loading="lazy"></iframe><!-- /wp:html -->',
  ),
  fc.constant(
    '<!-- wp:html --><form action="https://forms.example.com/s" method="post"><input type="email" name="e" required><button type="submit">Join</button></form><!-- /wp:html -->',
  ),
  fc.constant('<!-- wp:html --><script>if (a < b && c > d) { track("x"); }</script><!-- /wp:html -->'),
  fc.constant('<!-- wp:shortcode -->[gallery ids="1,2" link="file"]<!-- /wp:shortcode -->'),
  fc.constant(
    '<!-- wp:kadence/rowlayout {"uniqueID":"_a1","columns":2} --><div class="kt-row" data-x=\'{"y":1}\'><p>Builder</p></div><!-- /wp:kadence/rowlayout -->',
  ),
  fc.constant('<!-- wp:acme/widget {"mode":"dark"} /-->'),
  fc.constant('\n<div class="classic" onclick="openMenu()"><p>Classic <b>HTML</b></p></div>\n'),
);

const edit = fc.record({
  kind: fc.constantFrom("replace", "insert"),
  at: fc.nat(),
  text: words,
  where: fc.constantFrom("before", "after") as fc.Arbitrary<"before" | "after">,
});

async function adminPage(content: string): Promise<number> {
  return runAsAdmin<number>(
    wp.local.wpPath,
    "echo json_encode(wp_insert_post(wp_slash(array('post_type' => 'page', 'post_status' => 'publish', 'post_title' => 'Exact', 'post_content' => $args))));",
    content,
  );
}

describe("write = plan on the real plugin", () => {
  it("stores exactly the planned one-block edit, keeps every other byte, and undo gives the original back", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(block, { minLength: 1, maxLength: 6 }), edit, async (blocks, change) => {
        const original = blocks.join("");
        const id = await adminPage(original);
        const before = await readItem(wp.admin, `post:${id}`);
        expect(before.state?.content).toBe(original); // an administrator's markup is stored as written

        const count = parseBlocks(original).length;
        const position = String((change.at % count) + 1);
        const markup = `<!-- wp:paragraph --><p>${asStoredMarkup(change.text)}</p><!-- /wp:paragraph -->`;
        const planned =
          change.kind === "replace"
            ? replaceBlock(original, position, markup)
            : insertBlock(original, position, change.where, markup);

        const [written] = await writeItems(wp.admin, [
          { ref: `post:${id}`, expect: before.version, action: "update", fields: { content: planned } },
        ]);
        expect(written?.after?.content).toBe(planned);
        expect((await readItem(wp.admin, `post:${id}`)).state?.content).toBe(planned);

        await writeItems(wp.admin, [
          reverseChange({
            ref: `post:${id}`,
            action: "update",
            beforeState: before.state,
            afterState: written!.after,
            versionAfter: written!.version,
          }),
        ]);
        const undone = await readItem(wp.admin, `post:${id}`);
        expect(undone.state?.content).toBe(original);
        expect(undone.version).toBe(before.version);
      }),
      { numRuns: 15 },
    );
  }, 120_000);
});
