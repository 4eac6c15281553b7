/**
 * Sandbox benchmark (issues 6 and 39), in one run against the real engine, PostgreSQL and a live WordPress:
 *   - cold starts (pool empty), as POST /sessions does them, to the first WordPress page through the preview:
 *     from scratch (no spares: the cold path before issue 39) and from spares (lib/sandbox/spares.ts), p50/p90,
 *     with each step on the request path (network, create, start, first request, isolation check, copy) p50;
 *   - the same with a copy of a small live site (the copy's source read while the sandbox starts);
 *   - the network check from inside a sandbox started from a spare (1 = isolated);
 *   - warm-pool acquire (POST /sessions's work: claim + check + manifest) p50/p99;
 *   - memory per idle sandbox (engine stats, page cache excluded).
 * Goals: cold start to the first page ≤ 500 ms p50 from spares (issue 39; 1.5 s in issue 6), acquire ≤ 20 ms p50
 * (issue 39), < 120 MB idle (issue 6). Run alone: `node --import tsx bench/sandbox.ts`.
 */
import { GET as previewRoute } from "@/app/preview/[sandboxId]/[[...path]]/route";
import { setDatabaseForTests } from "@/lib/db";
import { countSandboxes, findSandboxById } from "@/lib/db/queries";
import { createTestDatabase } from "@/lib/db/testing";
import { setSandboxManagerForTests } from "@/lib/sandbox";
import type { SiteSource } from "@/lib/sandbox/sandboxes";
import { onSandboxStep, type SandboxStep, type StepRecord } from "@/lib/sandbox/steps";
import { createTestSandboxes, type TestSandboxes } from "@/lib/sandbox/testing";
import { newUser } from "@/test/accounts";
import { insertSiteRow, startAgentSite } from "@/test/agent-site";
import { call } from "@/test/http";
import { sized } from "./lib/smoke";

const ACQUIRES = sized(40);
const COLD_STARTS = sized(9);
const COPIES = sized(3);
const POOL_SIZE = 3;
const STEPS: SandboxStep[] = ["network", "create", "start", "first_request", "isolation", "copy"];

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
};
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

async function waitForPool(size: number, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while ((await countSandboxes({ statuses: ["pooled"] })) < size) {
    if (Date.now() > deadline) throw new Error("the pool did not fill in time");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function idleMemoryMb(t: TestSandboxes): Promise<number> {
  const samples: number[] = [];
  for (const container of await t.engine.list(t.namespace)) {
    if (!container.running) continue;
    const stats = (await t.engine.docker.getContainer(container.containerId).stats({ stream: false })) as {
      memory_stats?: { usage?: number; stats?: Record<string, number> };
    };
    const usage = stats.memory_stats?.usage ?? 0;
    const inner = stats.memory_stats?.stats ?? {};
    const cache = inner.total_inactive_file ?? inner.inactive_file ?? 0;
    if (usage > 0) samples.push((usage - cache) / (1024 * 1024));
  }
  return samples.length ? samples.reduce((a, b) => a + b, 0) / samples.length : NaN;
}

type Owner = Awaited<ReturnType<typeof newUser>>;
type ColdSeries = { ready: number[]; firstPage: number[]; steps: Map<SandboxStep, number[]> };

/** The front page through the preview route, as the owner's browser asks for it right after the answer. */
async function firstPage(owner: Owner, sandboxId: string) {
  const page = await call(previewRoute, {
    path: `/preview/${sandboxId}/`,
    cookie: owner.cookie,
    params: { sandboxId },
  });
  if (page.status !== 200) throw new Error(`the preview answered ${page.status}`);
}

/** `runs` cold starts, one at a time, each to its first page; the steps each waited for on its request path. */
async function coldSeries(t: TestSandboxes, owner: Owner, runs: number, siteId?: string): Promise<ColdSeries> {
  const series: ColdSeries = { ready: [], firstPage: [], steps: new Map() };
  await setSandboxManagerForTests(t.manager);
  for (let i = 0; i < runs; i++) {
    // A quiet service has its spares ready (made after the last take): wait for them as such a service would.
    await t.manager.prepareSpares();
    const records: StepRecord[] = [];
    onSandboxStep((record) => records.push(record));
    const started = performance.now();
    const sandbox = await t.manager.createSandbox({ userId: owner.id, siteId });
    series.ready.push(performance.now() - started);
    await firstPage(owner, sandbox.id);
    series.firstPage.push(performance.now() - started);
    onSandboxStep(undefined);
    for (const step of STEPS) {
      const onPath = records.filter((r) => r.sandboxId === sandbox.id && r.step === step && r.startedAt >= started);
      const list = series.steps.get(step) ?? [];
      list.push(onPath.reduce((sum, r) => sum + r.ms, 0));
      series.steps.set(step, list);
    }
    await t.manager.deleteSandbox({ userId: owner.id, id: sandbox.id });
  }
  return series;
}

function coldFigures(prefix: string, series: ColdSeries): Record<string, number> {
  const out: Record<string, number> = {
    [`${prefix}_ready_p50_ms`]: round(percentile(series.ready, 50)),
    [`${prefix}_first_page_p50_ms`]: round(percentile(series.firstPage, 50)),
    [`${prefix}_first_page_p90_ms`]: round(percentile(series.firstPage, 90)),
  };
  for (const [step, times] of series.steps) {
    if (times.some((ms) => ms > 0)) out[`${prefix}_step_${step}_p50_ms`] = round(percentile(times, 50));
  }
  return out;
}

/** The network check from inside a sandbox started from a spare: 1 when isolated. */
async function isolationProbe(t: TestSandboxes, owner: Owner): Promise<number> {
  await t.manager.prepareSpares();
  const sandbox = await t.manager.createSandbox({ userId: owner.id });
  const row = await findSandboxById({ id: sandbox.id });
  const check = await t.manager.fleet.checkIsolation(row!.containerId!);
  await t.manager.deleteSandbox({ userId: owner.id, id: sandbox.id });
  return check.isolated ? 1 : 0;
}

async function acquireTimes(t: TestSandboxes, owner: Owner): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < ACQUIRES; i++) {
    await waitForPool(POOL_SIZE);
    const started = performance.now();
    const sandbox = await t.manager.createSandbox({ userId: owner.id });
    times.push(performance.now() - started);
    if (!sandbox.fromPool) throw new Error("expected a pooled sandbox");
    await t.manager.deleteSandbox({ userId: owner.id, id: sandbox.id });
  }
  return times;
}

export async function benchSandbox(): Promise<Record<string, number>> {
  const db = await createTestDatabase();
  await setDatabaseForTests(db.handle);
  const wp = await startAgentSite();
  const made: TestSandboxes[] = [];
  const managers = (overrides: Parameters<typeof createTestSandboxes>[0], siteSource?: SiteSource) => {
    const t = createTestSandboxes({ max: 20, maxPerUser: 20, ...overrides }, { siteSource });
    made.push(t);
    return t;
  };
  try {
    const owner = await newUser("bench-sandbox");
    const siteId = await insertSiteRow({
      userId: owner.id,
      url: wp.local.url,
      token: wp.token,
      secret: wp.secret,
      info: wp.info,
    });
    const live = wp.clientFor(wp.local.url);
    const siteSource: SiteSource = async () => ({ client: live, site: { id: siteId, url: wp.local.url } });
    const scratch = managers({ poolSize: 0, spares: 0 }, siteSource);
    const prepared = managers({ poolSize: 0, spares: 2 }, siteSource);
    const imageStarted = performance.now();
    await scratch.manager.image();
    const imageReadyMs = performance.now() - imageStarted;
    await prepared.manager.image();

    // Cold starts first, with nothing else running; one of each kind first to warm this process.
    await coldSeries(scratch, owner, 1);
    await coldSeries(prepared, owner, 1);
    const fromScratch = await coldSeries(scratch, owner, COLD_STARTS);
    const fromSpares = await coldSeries(prepared, owner, COLD_STARTS);
    const copyScratch = await coldSeries(scratch, owner, COPIES, siteId);
    const copySpares = await coldSeries(prepared, owner, COPIES, siteId);
    const isolated = await isolationProbe(prepared, owner);
    await scratch.manager.close();
    await prepared.manager.close();

    // Warm pool: wait until full, then take one; the refill runs after the answer, as in the service.
    const pool = managers({ poolSize: POOL_SIZE, spares: 0 });
    await pool.manager.fillPool();
    await waitForPool(POOL_SIZE);
    await new Promise((resolve) => setTimeout(resolve, 2_000)); // let the members settle before reading memory
    const memoryMb = await idleMemoryMb(pool);
    const acquires = await acquireTimes(pool, owner);

    const acquireP50 = percentile(acquires, 50);
    return {
      sandbox_acquire_p50_ms: round(acquireP50),
      sandbox_acquire_p99_ms: round(percentile(acquires, 99)),
      ...coldFigures("sandbox_cold", fromSpares),
      ...coldFigures("sandbox_cold_scratch", fromScratch),
      ...coldFigures("sandbox_cold_copy", copySpares),
      ...coldFigures("sandbox_cold_copy_scratch", copyScratch),
      sandbox_cold_over_acquire: round(percentile(fromSpares.firstPage, 50) / acquireP50),
      sandbox_spare_isolation_probe_isolated: isolated,
      sandbox_idle_memory_mb: round(memoryMb),
      sandbox_image_ready_ms: round(imageReadyMs),
    };
  } finally {
    onSandboxStep(undefined);
    for (const t of made) await t.cleanup().catch(() => {});
    await setSandboxManagerForTests(undefined);
    await wp.local.stop();
    await setDatabaseForTests(undefined);
    await db.drop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchSandbox().then(
    (results) => {
      console.log(JSON.stringify(results, null, 2));
      process.exit(0);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
