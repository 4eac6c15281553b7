/**
 * Agent benchmark, against a fresh PostgreSQL database:
 *   - the loop's own overhead per step: a turn of many tool-calling steps where the scripted model and the site
 *     answer instantly, so what is measured is ours (streamText, the tool gate, budget, breaker, two audit writes
 *     per call, streaming, saving the turn);
 *   - `/chat` time to first byte through the real route handler (session, checks, conversation row), p50/p95.
 * Goals (issue 5): < 5 ms per step, < 50 ms to first byte.
 * Run alone: `node --import tsx bench/agent.ts`.
 */
import { randomUUID } from "node:crypto";
import { POST } from "@/app/chat/route";
import { setChatDepsForTests } from "@/lib/workflows/chat-turn";
import { setAgentModelForTests } from "@/lib/agent/model";
import { insertSiteRow } from "@/test/agent-site";
import { scriptedModel } from "@/lib/agent/testing/scripted-model";
import { createSession } from "@/lib/auth/session";
import { setDatabaseForTests } from "@/lib/db";
import { createTestDatabase } from "@/lib/db/testing";
import { insertUser } from "@/lib/db/queries";
import { env } from "@/lib/env";
import { refreshSiteInfo } from "@/lib/sites/sites";
import type { SiteClient } from "@/lib/sites/types";
import { sized } from "./lib/smoke";

const STEPS = sized(40, 2);
const TURNS = sized(5);
const TTFB_SAMPLES = sized(40);

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
};
const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

/** What the bench site's plugin says about it (read again at the start of every turn). */
const benchInfo = {
  name: "Bench",
  homeUrl: "https://bench.localhost",
  restUrl: "https://bench.localhost/wp-json/",
  wordpress: "6.1",
  php: "8.2",
  theme: { name: "Bench", stylesheet: "bench", isBlockTheme: false },
  pageBuilder: "gutenberg",
  token: {
    lastFour: "abcd",
    scopes: ["site:read", "content:read", "content:write"],
    capabilities: ["edit_posts", "edit_pages", "publish_posts", "publish_pages", "upload_files"],
  },
};

/** Answers every request at once, so the site's latency is not part of the loop's overhead. */
const instantSite: SiteClient = {
  get: async <T>(route: string) => ({
    status: 200,
    data: (route === "/sitewright/v1/info" ? benchInfo : { name: "Bench", wordpress: "6.1" }) as T,
    headers: new Headers(),
  }),
  post: async <T>() => ({ status: 200, data: {} as T, headers: new Headers() }),
  put: async <T>() => ({ status: 200, data: {} as T, headers: new Headers() }),
  delete: async <T>() => ({ status: 200, data: {} as T, headers: new Headers() }),
};

export async function benchAgent(): Promise<Record<string, number>> {
  const database = await createTestDatabase();
  await setDatabaseForTests(database.handle);
  try {
    const userId = randomUUID();
    await insertUser({
      id: userId,
      email: `bench-${userId}@example.com`,
      name: null,
      passwordHash: "x",
      createdAt: new Date(),
    });
    const cookie = await createSession(userId);
    const siteId = await insertSiteRow({
      userId,
      url: "https://bench.localhost",
      token: "t",
      secret: "s",
      info: benchInfo,
    });
    const limits = { maxSteps: STEPS + 1, maxToolCalls: STEPS + 1, maxTokens: 10_000_000, timeoutMs: 60_000 };
    setChatDepsForTests({
      siteClient: () => instantSite,
      refreshSite: (site) => refreshSiteInfo(site, instantSite),
      limits: () => limits,
    });
    const headers = {
      "content-type": "application/json",
      cookie: `${cookie.name}=${cookie.value}`,
      origin: env().APP_URL,
    };
    const post = (body: unknown) =>
      POST(new Request(`${env().APP_URL}/chat`, { method: "POST", headers, body: JSON.stringify(body) }));

    // Loop overhead: one turn of STEPS tool steps and a closing text step, against a one-step turn.
    const timeTurn = async (steps: number) => {
      setAgentModelForTests(
        scriptedModel([
          ...Array.from({ length: steps }, () => ({ toolCalls: [{ name: "get_site_info", input: {} }] })),
          { text: "done" },
        ]),
      );
      const started = performance.now();
      const response = await post({ siteId, message: "bench" });
      await response.text();
      if (response.status !== 200) throw new Error(`chat answered ${response.status}`);
      return performance.now() - started;
    };
    await timeTurn(5); // warm up
    const perStep: number[] = [];
    for (let i = 0; i < TURNS; i++) {
      const long = await timeTurn(STEPS);
      const short = await timeTurn(0);
      perStep.push((long - short) / STEPS);
    }

    // Time to first byte: from the request to the first chunk of the body.
    setAgentModelForTests(scriptedModel([{ text: "hello" }]));
    const ttfb: number[] = [];
    for (let i = 0; i < TTFB_SAMPLES + 5; i++) {
      const started = performance.now();
      const response = await post({ siteId, message: "hi" });
      const reader = response.body!.getReader();
      await reader.read();
      const elapsed = performance.now() - started;
      while (!(await reader.read()).done);
      if (i >= 5) ttfb.push(elapsed);
    }

    return {
      agent_loop_overhead_ms_per_step_p50: round(percentile(perStep, 50)),
      agent_loop_overhead_ms_per_step_max: round(Math.max(...perStep)),
      chat_ttfb_ms_p50: round(percentile(ttfb, 50)),
      chat_ttfb_ms_p95: round(percentile(ttfb, 95)),
    };
  } finally {
    setChatDepsForTests(undefined);
    setAgentModelForTests(undefined);
    await setDatabaseForTests(undefined);
    await database.drop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.env.LOG_LEVEL ||= "warn";
  benchAgent()
    .then((result) => {
      console.log(JSON.stringify(result, null, 2));
      process.exit(0);
    })
    .catch((error) => {
      console.error(error);
      process.exit(1);
    });
}
