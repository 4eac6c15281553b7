/**
 * Bulk jobs on the real WordPress with our plugin (scripts/site-local), in memory: plan and apply a find-and-replace
 * over 200 published pages (the whole job, and per item), undo of the 200, the model tokens one item of a
 * model-written field costs (the writer's request through the real provider path to the scripted OpenAI server,
 * counted with the o200k tokenizer), and the app process's memory during the job. Run by `npm run bench`, or alone:
 * `node --import tsx bench/jobs.ts`.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { writeJobTexts } from "@/lib/agent/job-writer";
import { setAgentModelForTests } from "@/lib/agent/model";
import { openDatabase, setDatabaseForTests } from "@/lib/db";
import { getChangeSetItems, insertUser } from "@/lib/db/queries";
import { createSiteClient } from "@/lib/sites/client";
import {
  applyChangeSetForOwner,
  setChangeDepsForTests,
  undoChangeSetForOwner,
} from "@/lib/workflows/change-set-actions";
import { kickJobRunner, setJobDepsForTests, startBulkJob } from "@/lib/workflows/bulk-job";
import { startLocalSite } from "@/scripts/site-local/index";
import { insertSiteRow } from "@/test/agent-site";
import { startOpenAIScriptedServer } from "@/test/openai-scripted-server";
import { runAsAdmin } from "@/test/wordpress";
import { round, timed } from "./lib/stats";
import { sized } from "./lib/smoke";

const ITEMS = sized(200, 10);

export async function benchJobs(): Promise<Record<string, number>> {
  const handle = await openDatabase(undefined);
  await setDatabaseForTests(handle);
  const site = await startLocalSite({ title: "Bench jobs" });
  try {
    const { token, secret } = await site.cli<{ token: string; secret: string }>(
      "create-credentials",
      "--scopes=site:read,content:read,content:write",
    );
    const client = createSiteClient(
      { baseUrl: site.url, restUrl: site.restUrl, token, secret },
      { ca: readFileSync(site.caPath, "utf8"), allowlist: ["localhost"] },
    );
    setChangeDepsForTests({ siteClient: () => client });
    setJobDepsForTests({ siteClient: () => client });
    const info = (await client.get<Record<string, unknown>>("/sitewright/v1/info")).data;
    const userId = randomUUID();
    await insertUser({
      id: userId,
      email: `${userId}@bench.example`,
      name: null,
      passwordHash: "x",
      createdAt: new Date(),
    });
    const siteId = await insertSiteRow({ userId, url: site.url, token, secret, info });
    await runAsAdmin(
      site.wpPath,
      "for ($i = 1; $i <= (int) $args; $i++) { wp_insert_post(array('post_type' => 'page', 'post_status' => 'publish', 'post_title' => 'Bench job ' . $i, 'post_content' => '<!-- wp:paragraph --><p>Call 555-0100 today.</p><!-- /wp:paragraph -->')); } echo 1;",
      ITEMS,
    );

    let peakRss = process.memoryUsage().rss;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
    }, 100);
    const plan = await timed(async () => {
      const job = await startBulkJob({
        userId,
        siteId,
        conversationId: randomUUID(),
        client,
        spec: {
          description: "pages with the old number",
          selection: { type: "page", search: "Bench job", status: "publish" },
          change: { kind: "replace", field: "content", find: "555-0100", replace: "555-0199" },
        },
      });
      await kickJobRunner();
      return job;
    });
    const request = { userId, siteId, changeSetId: plan.value.changeSetId };
    const apply = await timed(() => applyChangeSetForOwner(request));
    const undo = await timed(() => undoChangeSetForOwner(request));
    clearInterval(sampler);
    const items = (await getChangeSetItems(plan.value.changeSetId)).length;

    return {
      job_items: items,
      job_plan_200_ms: round(plan.ms, 0),
      job_apply_200_ms: round(apply.ms, 0),
      job_plan_and_apply_ms_per_item: round((plan.ms + apply.ms) / items, 1),
      job_undo_200_ms: round(undo.ms, 0),
      job_undo_ms_per_item: round(undo.ms / items, 1),
      job_process_peak_rss_mb: round(peakRss / 2 ** 20, 0),
      job_model_tokens_per_item: await tokensPerItem(),
    };
  } finally {
    setChangeDepsForTests(undefined);
    setJobDepsForTests(undefined);
    await site.stop();
    await setDatabaseForTests(undefined);
    await handle.close();
  }
}

/** One writer batch of 10 alt texts through the real provider path; the scripted model answers as a model would. */
async function tokensPerItem(): Promise<number> {
  const items = Array.from({ length: 10 }, (_, i) => ({
    id: 1000 + i,
    title: `Shop photo ${i + 1}`,
    slug: `shop-${i}`,
  }));
  const server = await startOpenAIScriptedServer(
    [
      (request) => {
        const prompt = request.messages.map((m) => String(m.content ?? "")).join("\n");
        const text = JSON.stringify({
          items: items.map((i) => ({ id: i.id, text: `A photo of the shop's ${i.title}` })),
        });
        return { text, usage: { prompt: countTokens(prompt), completion: countTokens(text) } };
      },
    ],
    { apiKey: "bench" },
  );
  const { createOpenAI } = await import("@ai-sdk/openai");
  setAgentModelForTests(createOpenAI({ apiKey: "bench", baseURL: server.baseURL }).chat("scripted"), "bench");
  try {
    const { tokens, texts } = await writeJobTexts({ field: "alt", instruction: "Describe each photo.", items });
    if (texts.size !== items.length) throw new Error("the writer did not answer every item");
    return round(tokens / items.length, 0);
  } finally {
    setAgentModelForTests(undefined);
    await server.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  benchJobs().then(
    (figures) => console.log(figures),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
