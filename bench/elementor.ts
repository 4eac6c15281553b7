/**
 * Elementor pages (issue 36) on WordPress 7.1 with Elementor 4.2.2 and our plugin (scripts/site-local): the agent's
 * own path for "change the hero heading and point the button at /contact", timed step by step and whole, from the
 * owner's message to "Verified on the live site" (read_page, edit_builder_page's plan, the approved write, then the
 * purge and the look at the public page). The model's own time is not in it (no model runs here); its tokens are:
 * what each step sends the model, counted with o200k_base as the tool budget is. Run by `npm run bench`, or alone:
 * `node --import tsx bench/elementor.ts`.
 */
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import editBuilderPage from "@/lib/agent/operations/edit_builder_page";
import readPage from "@/lib/agent/operations/read_page";
import { offeredTokens } from "@/lib/agent/testing/tool-tokens";
import { createSiteClient } from "@/lib/sites/client";
import { readItem, writeItems } from "@/lib/sites/items";
import { anonymousFetcher } from "@/lib/verification/fetch-page";
import { verifyLiveChange } from "@/lib/verification/verify";
import { startLocalSite } from "@/scripts/site-local/index";
import { runAsAdmin } from "@/test/wordpress";
import { median, round, timed } from "./lib/stats";
import { sized } from "./lib/smoke";

const ITERATIONS = sized(9);
const MESSAGE = 'Change the hero heading to "Bread baked every morning" and point the button at /contact';

const widget = (id: string, widgetType: string, settings: Record<string, unknown>) => ({
  id,
  elType: "widget",
  settings,
  elements: [],
  widgetType,
});

/** A bakery's home page of the common widgets: a hero, three offers in columns, a list, a closing call. */
const benchPage = [
  {
    id: "hero0001",
    elType: "container",
    settings: { _title: "Hero", content_width: "boxed" },
    elements: [
      widget("head0001", "heading", { title: "Welcome to the bakery", header_size: "h1" }),
      widget("text0001", "text-editor", { editor: "<p>Sourdough, croissants and coffee since 1998.</p>" }),
      widget("butn0001", "button", { text: "Get in touch", link: { url: "/about", is_external: "" } }),
      widget("imag0001", "image", { image: { url: "https://localhost/wp-content/uploads/shop.jpg", id: "" } }),
    ],
    isInner: false,
  },
  {
    id: "offr0001",
    elType: "container",
    settings: { _title: "Offers", flex_direction: "row" },
    elements: ["Bread", "Pastry", "Coffee"].map((name, index) => ({
      id: `col0000${index}`,
      elType: "container",
      settings: {},
      elements: [
        widget(`offh000${index}`, "heading", { title: name, header_size: "h3" }),
        widget(`offt000${index}`, "text-editor", { editor: `<p>Our ${name.toLowerCase()}, made each morning.</p>` }),
      ],
      isInner: true,
    })),
    isInner: false,
  },
  {
    id: "list0001",
    elType: "container",
    settings: { _title: "Opening hours" },
    elements: [
      widget("icon0001", "icon-list", {
        icon_list: [
          { text: "Monday to Friday 7–18", _id: "a1" },
          { text: "Saturday 8–14", _id: "a2" },
          { text: "Our menu", link: { url: "/menu" }, _id: "a3" },
        ],
      }),
      widget("butn0002", "button", { text: "See the menu", link: { url: "/menu" } }),
    ],
    isInner: false,
  },
];

export async function benchElementor(): Promise<Record<string, number>> {
  const site = await startLocalSite({ title: "Bench Elementor", wordpress: "7.1", plugins: ["elementor"] });
  try {
    const { token, secret } = await site.cli<{ token: string; secret: string }>(
      "create-credentials",
      "--scopes=site:read,content:read,content:write",
    );
    const ca = readFileSync(site.caPath, "utf8");
    const client = createSiteClient(
      { baseUrl: site.url, restUrl: site.restUrl, token, secret },
      { ca, allowlist: ["localhost"] },
    );
    const fetchPage = anonymousFetcher({ ca, allowlist: ["localhost"] });
    const id = await runAsAdmin<number>(
      site.wpPath,
      `$id = wp_insert_post(array('post_type' => 'page', 'post_status' => 'publish', 'post_title' => 'Home'));
       update_post_meta($id, '_elementor_edit_mode', 'builder');
       update_post_meta($id, '_elementor_template_type', 'wp-page');
       update_post_meta($id, '_elementor_version', '4.2.2');
       update_post_meta($id, '_elementor_data', wp_slash(wp_json_encode($args)));
       echo json_encode($id);`,
      benchPage,
    );
    const steps = { read: [] as number[], plan: [] as number[], write: [] as number[], verify: [] as number[] };
    const whole: number[] = [];
    let tokens = { read: 0, edit: 0 };
    for (let i = 0; i < ITERATIONS; i++) {
      const heading = `Bread baked every morning ${i}`;
      const started = performance.now();
      const read = await timed(() => readPage.run!(client, { type: "page", id }));
      const edits = [
        ["set", "head0001", "title", heading],
        ["set", "butn0001", "link.url", i % 2 === 0 ? "/contact" : "/about"],
      ];
      const plan = await timed(() => editBuilderPage.plan!(client, editBuilderPage.input.parse({ id, edits })));
      const [item] = plan.value.items;
      const write = await timed(() => writeItems(client, [item!.change]));
      const [done] = write.value;
      const verify = await timed(() =>
        verifyLiveChange({
          client,
          siteUrl: site.url,
          items: [
            {
              ref: item!.ref,
              kind: "builder",
              title: "Home",
              from: item!.beforeState,
              to: done!.after,
              version: done!.version,
            },
          ],
          fetchPage,
        }),
      );
      if (verify.value?.status !== "verified") throw new Error(`not verified: ${JSON.stringify(verify.value)}`);
      whole.push(performance.now() - started);
      steps.read.push(read.ms);
      steps.plan.push(plan.ms);
      steps.write.push(write.ms);
      steps.verify.push(verify.ms);
      tokens = {
        read: countTokens(JSON.stringify(read.value.data)),
        edit: countTokens(JSON.stringify({ id, edits })) + countTokens(JSON.stringify(item!.after)),
      };
    }
    if ((await readItem(client, `elementor:${id}`)).version === null) throw new Error("the page is gone");
    // Each model step sends the prompt and every tool (a block-theme site with Elementor: the most offered), the
    // message, and what the earlier steps added: step 2 reads the page's elements, step 3 the planned change.
    const base = (await offeredTokens("block")).total + countTokens(MESSAGE);
    return {
      elementor_message_to_verified_ms_p50: round(median(whole)),
      elementor_read_page_ms_p50: round(median(steps.read)),
      elementor_plan_ms_p50: round(median(steps.plan)),
      elementor_approved_write_ms_p50: round(median(steps.write)),
      elementor_verify_live_ms_p50: round(median(steps.verify)),
      elementor_read_result_tokens: tokens.read,
      elementor_tokens_step_1: base,
      elementor_tokens_step_2: base + tokens.read,
      elementor_tokens_step_3: base + tokens.read + tokens.edit,
    };
  } finally {
    await site.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  console.log(await benchElementor());
  process.exit(0);
}
